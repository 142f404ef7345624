package ax.spring;

import ax.executor.Pool;
import ax.executor.TaskHandler;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * Finds every {@link AxProcessor} in a bean factory, once all singletons exist, the way Spring's own
 * {@code @EventListener} support does: by bean name, looking at the class the bean was made from (not
 * the proxy around it) and calling the bean as the context holds it, proxy included.
 *
 * <p>Two kinds of declaration, each checked here so that a mistake stops the startup naming the bean:
 * the bean itself (its class, or its {@code @Bean} method, carries the annotation; the bean must then
 * be a {@link TaskHandler}), and methods of the bean's class taking a {@code TaskContext}. A
 * {@code @Bean} method carrying the annotation declares the bean it makes, not a processor method of
 * its configuration class. Processor beans must be singletons: a bean made per use has no one instance
 * to register.
 */
final class ProcessorScanner {
  private final ConfigurableListableBeanFactory beans;

  ProcessorScanner(ConfigurableListableBeanFactory beans) {
    this.beans = beans;
  }

  /** @throws AxExecutorConfigurationException at the first declaration that cannot be registered */
  ProcessorRegistry scan() {
    ProcessorRegistry registry = new ProcessorRegistry();
    for (String name : beans.getBeanNamesForType(Object.class, true, false)) {
      if (ScopedProxyUtils.isScopedTarget(name)) {
        continue; // its scoped proxy, a bean of its own, is scanned instead
      }
      Class<?> type = AutoProxyUtils.determineTargetClass(beans, name);
      if (type != null) {
        scanBean(registry, name, ClassUtils.getUserClass(type));
      }
    }
    return registry;
  }

  private void scanBean(ProcessorRegistry registry, String name, Class<?> type) {
    Set<AxProcessor> onBean = beans.findAllAnnotationsOnBean(name, AxProcessor.class, false);
    if (onBean.size() > 1) {
      throw invalid("bean '" + name + "' carries @AxProcessor " + onBean.size() + " times (" + onBean + ")",
          "Give one bean one processor name: put @AxProcessor on its class or on its @Bean method, once.");
    }
    for (AxProcessor annotation : onBean) {
      String declaredBy = "bean '" + name + "' (" + type.getName() + ")";
      Object bean = singleton(name, declaredBy);
      if (!(bean instanceof TaskHandler handler)) {
        throw invalid("@AxProcessor(\"" + annotation.value() + "\") on " + declaredBy
            + " needs the bean to implement ax.executor.TaskHandler", "Implement TaskHandler, or move"
            + " @AxProcessor onto a method of the bean that takes a TaskContext.");
      }
      registry.add(new ProcessorRegistry.Entry(annotation.value(), handler, pool(annotation, declaredBy), declaredBy));
    }
    if (!AnnotationUtils.isCandidateClass(type, AxProcessor.class)) {
      return; // java.* and the like: no annotations of ours inside
    }
    Map<Method, AxProcessor> methods = MethodIntrospector.selectMethods(type,
        (MethodIntrospector.MetadataLookup<AxProcessor>) m -> AnnotatedElementUtils.hasAnnotation(m, Bean.class)
            ? null : AnnotatedElementUtils.findMergedAnnotation(m, AxProcessor.class));
    for (Map.Entry<Method, AxProcessor> found : methods.entrySet()) {
      Method method = found.getKey();
      AxProcessor annotation = found.getValue();
      String declaredBy = "bean '" + name + "' method " + type.getName() + "." + method.getName();
      try {
        BeanMethodHandler.requireSignature(method);
      } catch (IllegalArgumentException e) {
        throw invalid("@AxProcessor(\"" + annotation.value() + "\") on " + declaredBy + " " + e.getMessage(),
            "Declare it as `Object " + method.getName() + "(TaskContext ctx)` (or void); read the payload from"
                + " ctx.payloadObject().");
      }
      Object bean = singleton(name, declaredBy);
      Method invocable;
      try {
        invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
      } catch (IllegalStateException e) {
        throw invalid("@AxProcessor(\"" + annotation.value() + "\") on " + declaredBy
            + " cannot be called through the bean's proxy: " + e.getMessage(),
            "Declare the method on an interface the bean implements, or proxy the class"
                + " (spring.aop.proxy-target-class=true).");
      }
      registry.add(new ProcessorRegistry.Entry(annotation.value(), new BeanMethodHandler(bean, invocable),
          pool(annotation, declaredBy), declaredBy));
    }
  }

  private Object singleton(String name, String declaredBy) {
    if (!beans.isSingleton(name)) {
      throw invalid("@AxProcessor on " + declaredBy + ": the bean is not a singleton",
          "Make the bean a singleton (the default scope): the executor registers one instance at startup.");
    }
    return beans.getBean(name);
  }

  private static Pool pool(AxProcessor annotation, String declaredBy) {
    Pool[] pools = annotation.pool();
    if (pools.length > 1) {
      throw invalid("@AxProcessor(\"" + annotation.value() + "\") on " + declaredBy + " names " + pools.length
          + " pools", "Give at most one pool, e.g. pool = Pool.SLOW.");
    }
    return pools.length == 0 ? null : pools[0];
  }

  private static AxExecutorConfigurationException invalid(String description, String action) {
    return new AxExecutorConfigurationException(description, action);
  }
}
