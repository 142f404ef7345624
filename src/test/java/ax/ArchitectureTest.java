package ax;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The shape ARCHITECTURE.md promises, checked on the compiled classes (the scheduler's and the SDK's):
 * pure logic free of Vert.x, an SDK that knows nothing of the server, no package cycles, SQL only in the
 * stores.
 */
@AnalyzeClasses(packages = "ax", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  /** Decision-heavy parts: given their inputs (and the time), they return answers; no I/O, no Vert.x. */
  private static final String[] PURE_PACKAGES = {
      "ax.wheel..", "ax.task..", "ax.fleet..", "ax.delivery..", "ax.leader..", "ax.schedule..", "ax.alert.."};

  /** Pure classes that live next to the Vert.x code that uses them. */
  private static final String[] PURE_CLASSES = {
      "ax.signing.RequestSigning", "ax.signing.SignatureVerifier", "ax.signing.OutboundSignature",
      "ax.signing.Hmac", "ax.ratelimit.TokenBucket", "ax.ratelimit.RateLimitSpec",
      "ax.http.CallbackUrlPolicy", "ax.clock.DbClock", "ax.clock.Rfc3339", "ax.json.StoredJson", "ax.json.JsonStrings", "ax.api.Utf8",
      "ax.api.WholeNumbers", "ax.api.BodyBudget", "ax.health.Readiness$Report",
      "ax.logging.LineFormatter", "ax.logging.JsonLineFormatter", "ax.logging.QuietLoggers"};

  @ArchTest
  static final ArchRule purePackagesImportNoVertx = noClasses().that().resideInAnyPackage(PURE_PACKAGES)
      .should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..", "io.micrometer..")
      .because("the wheel, the task model, the fleet, the executor dispatch, the leader term and the schedule planner are pure logic");

  @ArchTest
  static final ArchRule pureClassesImportNoVertx = noClasses()
      .that(com.tngtech.archunit.base.DescribedPredicate.describe("are listed in PURE_CLASSES",
          c -> java.util.Set.of(PURE_CLASSES).contains(c.getName())))
      .should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..")
      .because("signing, the token bucket, the URL policy, the clocks, the body checks and budget, the "
          + "stored-JSON rules and the log formats are pure logic");

  @ArchTest
  static final ArchRule theBridgeDecisionsImportNoVertx = noClasses().that().haveNameMatching(
          "ax\\.bridge\\.(FrameDecoder|BridgeSession|BridgeCommand|UnauthenticatedBudget|BridgeLimits|ClientFrame|Utf8|LogThrottle)(\\$.*)?")
      .should().dependOnClassesThat().resideInAnyPackage("io.vertx..", "io.netty..")
      .because("framing, the connection's state machine and its limits are pure logic; BridgeConnection does the I/O");

  @ArchTest
  static final ArchRule theSdkAndTheProtocolKnowNothingOfTheServer = classes()
      .that().resideInAnyPackage("ax.executor..", "ax.protocol..")
      .should().onlyDependOnClassesThat().resideInAnyPackage("ax.executor..", "ax.protocol..", "java..",
          "io.vertx.core..")
      .because("the SDK is its own artifact that depends on vertx-core only");

  @ArchTest
  static final ArchRule theProtocolDoesNotDependOnTheSdk = noClasses().that().resideInAPackage("ax.protocol..")
      .should().dependOnClassesThat().resideInAPackage("ax.executor..")
      .because("the scheduler uses the protocol without the SDK");

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("ax.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule sqlOnlyInTheStores = noClasses().that().resideOutsideOfPackages("ax.store..", "ax.node..")
      .should().dependOnClassesThat().resideInAnyPackage("io.vertx.sqlclient..", "io.vertx.pgclient..")
      .because("SQL lives in ax.store, one class per table family (ax.node only wires the pool in)");
}
