package ax.spring;

import ax.executor.TaskContext;
import ax.executor.TaskHandler;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;

/**
 * Runs a processor declared on a bean method, {@code (TaskContext) -> Object} or {@code void}. The
 * method is called on the bean as the context holds it (a proxy, if any, so transactions and other
 * advice apply), and what the method throws is rethrown as is: the SDK reports the processor's own
 * exception message, not a reflection wrapper's.
 */
final class BeanMethodHandler implements TaskHandler {
  private final Object bean;
  private final Method method;

  /**
   * @param method a method callable on {@code bean} (for a proxy, the proxy's method)
   * @throws IllegalArgumentException if the method does not take exactly one {@link TaskContext}
   */
  BeanMethodHandler(Object bean, Method method) {
    requireSignature(method);
    this.bean = Objects.requireNonNull(bean);
    this.method = method;
    ReflectionUtils.makeAccessible(method);
  }

  static void requireSignature(Method method) {
    Class<?>[] parameters = method.getParameterTypes();
    if (parameters.length != 1 || parameters[0] != TaskContext.class) {
      throw new IllegalArgumentException("must take exactly one ax.executor.TaskContext parameter");
    }
  }

  @Override
  public Object handle(TaskContext ctx) throws Exception {
    try {
      return method.invoke(bean, ctx);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception exception) {
        throw exception;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  @Override
  public String toString() {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "(TaskContext)";
  }
}
