package ax.spring;

import ax.executor.Pool;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the code that runs the tasks of one processor name, so the executor registers it with the
 * scheduler and runs tasks submitted with {@code "processor": value} on it. Three places are accepted:
 *
 * <ul>
 *   <li>on a method of a bean, taking a {@link ax.executor.TaskContext} and returning the result (or
 *       {@code void} for none): {@code @AxProcessor("invoice.render") Object render(TaskContext ctx)};</li>
 *   <li>on the class of a bean that implements {@link ax.executor.TaskHandler};</li>
 *   <li>on a {@code @Bean} method that returns a {@link ax.executor.TaskHandler}, often a lambda.</li>
 * </ul>
 *
 * The code runs on a worker thread of the executor's pools, so it may block. What it returns becomes
 * the task's {@code result} (JSON-like, at most 64 KiB); an exception fails the attempt with its
 * message, and the scheduler's retry policy decides what happens next. A processor name may be
 * declared once in the application: two declarations stop the startup, naming both beans.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface AxProcessor {

  /** The processor name: 1–128 of {@code [A-Za-z0-9._:-]}, as tasks name it in {@code processor}. */
  String value();

  /**
   * Pins the processor to one pool ({@code pool = Pool.SLOW}); empty, the default, runs each task in the
   * pool the scheduler chose for it. An array only because an annotation cannot default to null: give
   * at most one.
   */
  Pool[] pool() default {};
}
