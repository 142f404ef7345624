package ax.tools;

import ax.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line parsed in this JVM: what it accepts, what it refuses and what it prints. */
class AxCliTest {
  private static final Map<String, String> NO_ENV = Map.of();
  private static final String[] COMMANDS = {"server", "dev", "sign", "executor", "executor-token", "tenants", "keys",
      "admin-token"};

  /** The signing vector of RequestSigningTest (POST): the same request must sign to the same hex. */
  private static final String SECRET = "s3cr3t-key-0123456789abcdef";
  private static final String TIMESTAMP = "1764460800000";
  private static final String BODY = "{\"task_type\":\"coupon.grant\",\"delay_ms\":5000,"
      + "\"callback_url\":\"https://hooks.example.com/grant\",\"payload\":{\"user\":42}}";
  private static final String SIGNATURE = "6e5f2760ca9c56d38fa872a44dbea742d7ca91285e082d1591d89fa1d809f808";

  @Test
  void signPrintsTheFourHeadersOfTheSpecVector() {
    CliRun r = CliRun.run(NO_ENV, "sign", "--key", "ak-1", "--secret", SECRET, "--method", "POST",
        "--path", "/openapi/v1/tasks", "--timestamp", TIMESTAMP, "--nonce", "n0nce-abc123", "--body", BODY);

    assertEquals(0, r.code(), r.err());
    assertEquals(String.join(System.lineSeparator(), "X-Ax-Key: ak-1", "X-Ax-Timestamp: " + TIMESTAMP,
        "X-Ax-Nonce: n0nce-abc123", "X-Ax-Signature: " + SIGNATURE, ""), r.out());
    assertEquals("", r.err());
  }

  @Test
  void aMistypedFlagIsRefusedWithTheReasonAndNothingIsSigned() {
    CliRun r = CliRun.run(NO_ENV, "sign", "--key", "ak-1", "--secret", SECRET, "--path", "/openapi/v1/tasks",
        "--bdy", BODY);

    assertEquals(2, r.code());
    assertTrue(r.err().startsWith("ax sign: Unknown options: '--bdy'"), r.err());
    assertTrue(r.err().contains("--body"), "suggests the flag it resembles:\n" + r.err());
    assertTrue(r.err().contains("java -jar ax.jar sign --help"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void aMistypedRequiredFlagIsReportedBeforeTheMissingOneItCausedWithASuggestion() {
    CliRun r = CliRun.run(NO_ENV, "sign", "--kee", "ak-1", "--secret", SECRET, "--path", "/openapi/v1/tasks");

    assertEquals(2, r.code());
    assertTrue(r.err().startsWith("ax sign: Unknown options: '--kee', 'ak-1'" + System.lineSeparator()
        + "Possible solutions: --key"), r.err());
    assertTrue(r.err().contains("Missing required option: '--key=AK'"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void aMissingRequiredFlagIsNamed() {
    CliRun r = CliRun.run(NO_ENV, "sign", "--key", "ak-1", "--path", "/openapi/v1/tasks");

    assertEquals(2, r.code());
    assertTrue(r.err().contains("Missing required option: '--secret=SK'"), r.err());
    assertEquals("", r.out());
  }

  @Test
  void aStrayWordOrABodyGivenTwiceIsRefused() {
    assertEquals(2, CliRun.run(NO_ENV, "sign", "--key", "a", "--secret", "s", "--path", "/p", "extra").code());
    CliRun both = CliRun.run(NO_ENV, "sign", "--key", "a", "--secret", "s", "--path", "/p", "--body", "{}",
        "--body-file", "b.json");
    assertEquals(2, both.code());
    assertTrue(both.err().contains("--body and --body-file cannot both be given"), both.err());
  }

  @Test
  void aValueStartingWithAtIsAValueNotAFileOfArguments() {
    CliRun r = CliRun.run(NO_ENV, "sign", "--key", "a", "--secret", "s", "--path", "/p", "--body", "@h.txt");

    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("X-Ax-Signature: "), r.out());
  }

  @Test
  void withoutACommandTheUsageGoesToStderrAndTheExitCodeIs2() {
    CliRun r = CliRun.run(NO_ENV);

    assertEquals(2, r.code());
    assertEquals("", r.out());
    for (String command : COMMANDS) {
      assertTrue(r.err().contains(command), command + " is listed:\n" + r.err());
    }
  }

  @Test
  void anUnknownCommandIsRefusedWithASuggestion() {
    CliRun r = CliRun.run(NO_ENV, "serve");

    assertEquals(2, r.code());
    assertTrue(r.err().contains("Unmatched argument at index 0: 'serve'"), r.err());
    assertTrue(r.err().contains("server"), r.err());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "server", "dev", "sign", "executor", "executor-token", "tenants", "keys", "keys create",
      "keys disable", "admin-token"})
  void everyCommandAnswersHelpOnStdoutWithExitCode0(String command) {
    String[] args = (command.isEmpty() ? "--help" : command + " --help").split(" ");
    CliRun r = CliRun.run(NO_ENV, args);

    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Usage: ax" + (command.isEmpty() ? "" : " " + command)), r.out());
    assertEquals("", r.err());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "server", "dev", "sign", "executor", "executor-token", "tenants", "keys", "admin-token"})
  void everyCommandPrintsTheProjectVersion(String command) {
    String expected = System.getProperty("ax.version");
    assertTrue(expected != null && !expected.isBlank(), "surefire passes the pom's version as ax.version");

    CliRun r = command.isEmpty() ? CliRun.run(NO_ENV, "--version") : CliRun.run(NO_ENV, command, "--version");

    assertEquals(0, r.code(), r.err());
    assertEquals("ax " + expected + System.lineSeparator(), r.out());
  }

  @Test
  void helpNamesTheCommandsAndServerHelpNamesItsVariable() {
    assertEquals(0, CliRun.run(NO_ENV, "help").code());
    assertTrue(CliRun.run(NO_ENV, "help", "server").out().contains("AX_PG_URL"));
  }

  @Test
  void serverAndDevTakeNoFlags() {
    CliRun r = CliRun.run(NO_ENV, "server", "--port", "8080");

    assertEquals(2, r.code());
    assertTrue(r.err().startsWith("ax server: Unknown options: '--port', '8080'"), r.err());
    assertEquals(2, CliRun.run(NO_ENV, "dev", "--pg-url", "x").code());
  }

  @Test
  void theExecutorNeedsItsServersAndProcessorsAndATokenFromAFlagOrTheEnvironment() {
    CliRun noServers = CliRun.run(Map.of("AX_EXECUTOR_TOKEN", "t"), "executor", "--processors", "echo");
    assertEquals(2, noServers.code());
    assertTrue(noServers.err().contains("Missing required option: '--servers="), noServers.err());

    CliRun noToken = CliRun.run(NO_ENV, "executor", "--servers", "127.0.0.1:7000", "--processors", "echo");
    assertEquals(2, noToken.code());
    assertTrue(noToken.err().contains("'--token=TOKEN' (or set AX_EXECUTOR_TOKEN)"), noToken.err());

    CliRun unknownProcessor = CliRun.run(NO_ENV, "executor", "--servers", "127.0.0.1:7000", "--token", "a.b.c",
        "--executor-id", "ex-1", "--processors", "echo,mail");
    assertEquals(2, unknownProcessor.code());
    assertTrue(unknownProcessor.err().contains("unknown processor 'mail' (known: echo,fail,noop,sleep)"),
        unknownProcessor.err());
  }

  @Test
  void theLauncherHookRunsOnlyForACommandThatWillRun() {
    AtomicInteger runs = new AtomicInteger();
    Runnable count = runs::incrementAndGet;

    CliRun.run(NO_ENV, count, "sign", "--help");
    CliRun.run(NO_ENV, count, "--version");
    CliRun.run(NO_ENV, count, "sign", "--nope");
    assertEquals(0, runs.get(), "help, version and refused lines install nothing");

    assertEquals(0, CliRun.run(NO_ENV, count, "sign", "--key", "a", "--secret", "s", "--path", "/p").code());
    assertEquals(1, runs.get());
  }

  @Test
  void aBadSettingFromTheHookRefusesTheRunNamingTheVariable() {
    CliRun r = CliRun.run(NO_ENV, () -> {
      throw new ConfigException("AX_LOG_LEVEL=loud is not a level");
    }, "sign", "--key", "a", "--secret", "s", "--path", "/p");

    assertEquals(2, r.code());
    assertEquals("ax: configuration error: AX_LOG_LEVEL=loud is not a level" + System.lineSeparator(), r.err());
    assertFalse(r.out().contains("X-Ax-Signature"), "nothing signed");
  }
}
