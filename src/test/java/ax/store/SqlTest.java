package ax.store;

import ax.leader.Fence;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SqlTest {

  @Test
  void namedParametersBecomePositionalAndARepeatedNameKeepsItsNumber() {
    Sql sql = Sql.of("SELECT * FROM t WHERE a = :a AND b = ANY(:ids::bigint[]) AND c >= :a");
    assertEquals("SELECT * FROM t WHERE a = $1 AND b = ANY($2::bigint[]) AND c >= $1", sql.text());
    assertEquals(List.of("a", "ids"), sql.names());
  }

  @Test
  void castsLiteralsAndCommentsAreLeftAlone() {
    Sql sql = Sql.of("SELECT 'x:y', '''it'':s', \"c:d\", now()::text -- not :this\n FROM t WHERE v = :v");
    assertEquals("SELECT 'x:y', '''it'':s', \"c:d\", now()::text -- not :this\n FROM t WHERE v = $1", sql.text());
  }

  @Test
  void everyParameterMustBeBoundAndOnlyThoseTheStatementHas() {
    Sql sql = Sql.of("UPDATE t SET x = :x WHERE id = :id");
    assertThrows(IllegalStateException.class, () -> sql.params().set("x", 1).tuple(), "a missing :id is refused");
    assertThrows(IllegalArgumentException.class, () -> sql.params().set("y", 1));
    var tuple = sql.params().set("id", 7L).set("x", null).tuple();
    assertEquals(2, tuple.size());
    assertEquals(7L, tuple.getValue(1));
  }

  @Test
  void theLeaseFenceBindsHolderAndEpochOnce() {
    Sql sql = Sql.of("WITH " + Sql.LEASE + " SELECT 1 FROM lease");
    var tuple = sql.params().fence(new Fence("scheduler", "node-a/1", 9)).tuple();
    assertEquals(List.of("lease", "holder", "epoch"), sql.names());
    assertEquals("node-a/1", tuple.getValue(1));
    assertEquals(9L, tuple.getValue(2));
    assertTrue(sql.text().contains("FOR SHARE"));
  }
}
