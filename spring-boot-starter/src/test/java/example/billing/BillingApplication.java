package example.billing;

import ax.executor.TaskHandler;
import ax.spring.AxProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot service as a team would write it with the starter: its processors are ordinary beans
 * (InvoiceTotals, Reports, and the lambda below), configured in billing.yml. The live test runs it
 * against a real scheduler node.
 */
@SpringBootApplication
public class BillingApplication {

  public static void main(String[] args) {
    SpringApplication.run(BillingApplication.class, args);
  }

  @Bean
  @AxProcessor("greet")
  TaskHandler greet() {
    return ctx -> "hello " + ctx.payloadObject().getString("name");
  }
}
