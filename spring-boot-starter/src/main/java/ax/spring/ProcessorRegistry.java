package ax.spring;

import ax.executor.AxExecutor;
import ax.executor.Pool;
import ax.executor.TaskHandler;
import ax.protocol.Names;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The processors found in the application, by name, each with where it was declared so that a second
 * declaration of a name can say which two collide. Knows nothing of Spring.
 */
final class ProcessorRegistry {

  /**
   * One processor: its code, the pool it is pinned to (null: the scheduler's choice) and where it was
   * declared, for messages ("bean 'invoices' method InvoiceService.render(TaskContext)").
   */
  record Entry(String name, TaskHandler handler, Pool pool, String declaredBy) {
    Entry {
      Objects.requireNonNull(handler);
      Objects.requireNonNull(declaredBy);
    }
  }

  private final Map<String, Entry> entries = new TreeMap<>();

  /** @throws AxExecutorConfigurationException for a bad name or a name declared before */
  void add(Entry entry) {
    if (!Names.isProcessor(entry.name())) {
      throw new AxExecutorConfigurationException("@AxProcessor(\"" + entry.name() + "\") on " + entry.declaredBy()
          + " is no valid processor name", "Name the processor with 1-" + Names.PROCESSOR_MAX
          + " of [A-Za-z0-9._:-], as tasks name it in their \"processor\" field.");
    }
    Entry before = entries.putIfAbsent(entry.name(), entry);
    if (before != null) {
      throw new AxExecutorConfigurationException("processor '" + entry.name() + "' is declared twice: by "
          + before.declaredBy() + " and by " + entry.declaredBy(),
          "Keep one @AxProcessor(\"" + entry.name() + "\"): an executor has one handler per processor name, so"
              + " one of the two would silently never run.");
    }
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** By name, sorted. */
  Map<String, Entry> entries() {
    return Collections.unmodifiableMap(entries);
  }

  /** Registers every processor with the builder. */
  void applyTo(AxExecutor.Builder builder) {
    for (Entry e : entries.values()) {
      builder.handler(e.name(), e.pool(), e.handler());
    }
  }
}
