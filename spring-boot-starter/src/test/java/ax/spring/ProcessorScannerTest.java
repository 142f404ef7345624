package ax.spring;

import ax.executor.Pool;
import ax.executor.TaskContext;
import ax.executor.TaskHandler;
import io.vertx.core.json.JsonObject;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.autoproxy.BeanNameAutoProxyCreator;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What counts as a processor, found in a real application context and called as the executor calls
 * it: on methods, on TaskHandler classes and on @Bean methods; through proxies; with every mistake
 * stopping the scan with a message that names the bean.
 */
class ProcessorScannerTest {

  static TaskContext task(String processor, JsonObject payload) {
    return new TaskContext("billing-1", "252970379197284352", 1, processor, "billing", payload, 5, "default", 30_000,
        0, 0, 1);
  }

  /** Scans a context made of {@code classes}, closed again afterwards: the handlers stay callable. */
  private static ProcessorRegistry scan(Class<?>... classes) {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(classes)) {
      return new ProcessorScanner(context.getBeanFactory()).scan();
    }
  }

  private static Object call(ProcessorRegistry registry, String name, JsonObject payload) throws Exception {
    return registry.entries().get(name).handler().handle(task(name, payload));
  }

  @Component("invoices")
  static class Invoices {
    @AxProcessor("invoice.render")
    public Map<String, Object> render(TaskContext ctx) {
      return Map.of("invoice", ctx.payloadObject().getString("id"), "attempt", ctx.attempt());
    }

    @AxProcessor(value = "invoice.archive", pool = Pool.SLOW)
    public void archive(TaskContext ctx) {
    }

    @AxProcessor("invoice.fail")
    Object fail(TaskContext ctx) throws IOException { // not public: called all the same
      throw new IOException("disk full for " + ctx.taskId());
    }

    public Object notAProcessor(TaskContext ctx) {
      return "never registered";
    }
  }

  @Component("greeter")
  @AxProcessor("greet")
  static class Greeter implements TaskHandler {
    @Override
    public Object handle(TaskContext ctx) {
      return "hello " + ctx.payloadObject().getString("name");
    }
  }

  @Configuration
  static class Lambdas {
    @Bean
    @AxProcessor(value = "sum", pool = Pool.HIGH)
    TaskHandler sum() {
      return ctx -> ctx.payloadObject().getInteger("a") + ctx.payloadObject().getInteger("b");
    }
  }

  @Test
  void methodsClassesAndBeanMethodsAreProcessors() throws Exception {
    ProcessorRegistry registry = scan(Invoices.class, Greeter.class, Lambdas.class);

    assertThat(registry.entries())
        .containsOnlyKeys("invoice.render", "invoice.archive", "invoice.fail", "greet", "sum");
    assertThat(call(registry, "invoice.render", new JsonObject().put("id", "INV-9")))
        .isEqualTo(Map.of("invoice", "INV-9", "attempt", 1));
    assertThat(call(registry, "invoice.archive", new JsonObject())).isNull();
    assertThat(call(registry, "greet", new JsonObject().put("name", "Ada"))).isEqualTo("hello Ada");
    assertThat(call(registry, "sum", new JsonObject().put("a", 2).put("b", 3))).isEqualTo(5);
  }

  @Test
  void poolsArePinnedOnlyWhereAsked() {
    ProcessorRegistry registry = scan(Invoices.class, Lambdas.class);
    assertThat(registry.entries().get("invoice.archive").pool()).isEqualTo(Pool.SLOW);
    assertThat(registry.entries().get("sum").pool()).isEqualTo(Pool.HIGH);
    assertThat(registry.entries().get("invoice.render").pool()).isNull();
  }

  @Test
  void whatAProcessorThrowsReachesTheExecutorUnwrapped() {
    ProcessorRegistry registry = scan(Invoices.class);
    assertThatThrownBy(() -> call(registry, "invoice.fail", new JsonObject()))
        .isExactlyInstanceOf(IOException.class).hasMessage("disk full for 252970379197284352");
  }

  @Test
  void aLazyProcessorBeanIsFoundAndMade() throws Exception {
    ProcessorRegistry registry = scan(LazyGreeter.class);
    assertThat(call(registry, "greet", new JsonObject().put("name", "lazy"))).isEqualTo("hello lazy");
  }

  @Lazy
  @Component("lazyGreeter")
  static class LazyGreeter extends Greeter {
  }

  // ---------------------------------------------------------------- proxies

  /** Counts calls through the proxies that an auto-proxy creator (as AOP or @Transactional would) puts around beans. */
  static final AtomicInteger ADVISED = new AtomicInteger();

  @Configuration
  static class ClassProxies {
    @Bean
    static BeanNameAutoProxyCreator proxies() {
      BeanNameAutoProxyCreator creator = new BeanNameAutoProxyCreator();
      creator.setBeanNames("invoices");
      creator.setInterceptorNames("counting");
      creator.setProxyTargetClass(true);
      return creator;
    }

    @Bean
    MethodInterceptor counting() {
      return invocation -> {
        ADVISED.incrementAndGet();
        return invocation.proceed();
      };
    }
  }

  @Test
  void aProcessorIsCalledThroughItsBeansProxySoAdviceApplies() throws Exception {
    ProcessorRegistry registry = scan(ClassProxies.class, Invoices.class);
    int before = ADVISED.get();
    assertThat(call(registry, "invoice.render", new JsonObject().put("id", "INV-1"))).isNotNull();
    assertThat(ADVISED.get()).isEqualTo(before + 1);
  }

  interface Renderer {
    Object render(TaskContext ctx);
  }

  @Component("renderer")
  static class InterfaceRenderer implements Renderer {
    @Override
    @AxProcessor("render")
    public Object render(TaskContext ctx) {
      return "rendered";
    }
  }

  @Component("renderer")
  static class HiddenRenderer extends InterfaceRenderer {
    @AxProcessor("render.hidden")
    public Object hidden(TaskContext ctx) {
      return "unreachable through an interface proxy";
    }
  }

  @Configuration
  static class InterfaceProxies {
    @Bean
    static BeanNameAutoProxyCreator proxies() {
      BeanNameAutoProxyCreator creator = new BeanNameAutoProxyCreator();
      creator.setBeanNames("renderer");
      creator.setInterceptorNames("counting");
      return creator;
    }

    @Bean
    MethodInterceptor counting() {
      return invocation -> {
        ADVISED.incrementAndGet();
        return invocation.proceed();
      };
    }
  }

  @Test
  void aMethodOfTheInterfaceIsFoundBehindAnInterfaceProxy() throws Exception {
    ProcessorRegistry registry = scan(InterfaceProxies.class, InterfaceRenderer.class);
    assertThat(call(registry, "render", new JsonObject())).isEqualTo("rendered");
  }

  @Test
  void aMethodAnInterfaceProxyCannotReachStopsTheScan() {
    assertThatThrownBy(() -> scan(InterfaceProxies.class, HiddenRenderer.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("@AxProcessor(\"render.hidden\") on bean 'renderer' method")
        .hasMessageContaining("cannot be called through the bean's proxy");
  }

  // ---------------------------------------------------------------- mistakes

  @Component("otherInvoices")
  static class OtherInvoices {
    @AxProcessor("invoice.render")
    public Object render(TaskContext ctx) {
      return null;
    }
  }

  @Test
  void aNameDeclaredTwiceStopsTheScanNamingBoth() {
    assertThatThrownBy(() -> scan(Invoices.class, OtherInvoices.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("processor 'invoice.render' is declared twice")
        .hasMessageContaining("bean 'invoices' method " + Invoices.class.getName() + ".render")
        .hasMessageContaining("bean 'otherInvoices' method " + OtherInvoices.class.getName() + ".render");
  }

  @Component("wrongSignature")
  static class WrongSignature {
    @AxProcessor("invoice.total")
    public Object total(JsonObject payload) {
      return null;
    }
  }

  @Test
  void aMethodThatDoesNotTakeATaskContextIsRefused() {
    assertThatThrownBy(() -> scan(WrongSignature.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("bean 'wrongSignature' method " + WrongSignature.class.getName() + ".total")
        .hasMessageContaining("must take exactly one ax.executor.TaskContext parameter");
  }

  @Component("notAHandler")
  @AxProcessor("invoice.total")
  static class NotAHandler {
  }

  @Test
  void anAnnotatedClassThatIsNoTaskHandlerIsRefused() {
    assertThatThrownBy(() -> scan(NotAHandler.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("bean 'notAHandler'").hasMessageContaining("implement ax.executor.TaskHandler");
  }

  @Scope("prototype")
  @Component("perUse")
  static class PerUse extends Greeter {
  }

  @Test
  void aPrototypeProcessorIsRefused() {
    assertThatThrownBy(() -> scan(PerUse.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("bean 'perUse'").hasMessageContaining("not a singleton");
  }

  @Component("twoPools")
  static class TwoPools {
    @AxProcessor(value = "x", pool = {Pool.HIGH, Pool.SLOW})
    public Object x(TaskContext ctx) {
      return null;
    }
  }

  @Test
  void twoPoolsAreRefused() {
    assertThatThrownBy(() -> scan(TwoPools.class))
        .isInstanceOf(AxExecutorConfigurationException.class).hasMessageContaining("names 2 pools");
  }

  @Component("badName")
  static class BadName {
    @AxProcessor("invoice render")
    public Object x(TaskContext ctx) {
      return null;
    }
  }

  @Test
  void aNameOutsideTheProtocolsAlphabetIsRefused() {
    assertThatThrownBy(() -> scan(BadName.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("@AxProcessor(\"invoice render\") on bean 'badName'")
        .hasMessageContaining("no valid processor name");
  }

  @Configuration
  static class TwiceOnOneBean {
    @Bean
    @AxProcessor("greet.again")
    Greeter greeter() {
      return new Greeter();
    }
  }

  @Test
  void aBeanAnnotatedOnItsClassAndItsBeanMethodIsRefused() {
    assertThatThrownBy(() -> scan(TwiceOnOneBean.class))
        .isInstanceOf(AxExecutorConfigurationException.class)
        .hasMessageContaining("bean 'greeter' carries @AxProcessor 2 times");
  }

  @Test
  void aContextWithoutProcessorsGivesAnEmptyRegistry() {
    assertThat(scan(OtherConfig.class).isEmpty()).isTrue();
  }

  @Configuration
  static class OtherConfig {
    @Bean
    String notAProcessor() {
      return "plain";
    }
  }
}
