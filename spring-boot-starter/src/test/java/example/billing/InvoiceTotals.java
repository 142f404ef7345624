package example.billing;

import ax.executor.TaskContext;
import ax.executor.TaskHandler;
import ax.spring.AxProcessor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import java.math.BigDecimal;
import java.util.Map;

/** A processor declared on its class: sums {@code payload.lines[].price × qty} in the configured currency. */
@Component
@AxProcessor("invoice.total")
class InvoiceTotals implements TaskHandler {
  private final String currency;

  InvoiceTotals(@Value("${billing.currency}") String currency) {
    this.currency = currency;
  }

  @Override
  public Object handle(TaskContext ctx) {
    JsonArray lines = ctx.payloadObject().getJsonArray("lines");
    BigDecimal total = BigDecimal.ZERO;
    for (int i = 0; i < lines.size(); i++) {
      JsonObject line = lines.getJsonObject(i);
      total = total.add(new BigDecimal(line.getValue("price").toString())
          .multiply(new BigDecimal(line.getValue("qty").toString())));
    }
    return Map.of("invoice", ctx.payloadObject().getString("invoice"), "currency", currency,
        "total", total.toPlainString());
  }
}
