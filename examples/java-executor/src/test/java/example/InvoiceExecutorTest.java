package example;

import ax.executor.TaskContext;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InvoiceExecutorTest {

  private static TaskContext task(Object payload) {
    return new TaskContext("ex-1", "1", 1, "invoice.total", "billing", payload, 5, "default", 1_000, 0, 0, 1);
  }

  @Test
  void totalsAreExactDecimals() {
    JsonObject invoice = new JsonObject().put("invoice", "INV-7").put("currency", "EUR").put("lines", new JsonArray()
        .add(new JsonObject().put("price", "0.10").put("qty", 3))
        .add(new JsonObject().put("price", 19.99).put("qty", "2")));
    JsonObject out = InvoiceExecutor.total(task(invoice));
    assertEquals("40.28", out.getString("total"));
    assertEquals(2, out.getInteger("lines"));
    assertEquals("INV-7", out.getString("invoice"));
  }

  @Test
  void aMalformedInvoiceFailsWithTheFieldNamed() {
    JsonObject bad = new JsonObject().put("lines", new JsonArray().add(new JsonObject().put("price", "x").put("qty", 1)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> InvoiceExecutor.total(task(bad)));
    assertTrue(e.getMessage().contains("lines[0].price"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> InvoiceExecutor.total(task(new JsonObject())));
  }
}
