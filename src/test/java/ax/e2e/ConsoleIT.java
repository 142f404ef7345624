package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The web console in a real browser (Debian's chromium, headless, through chromedriver), against the
 * jar started as a user would: sign in with an access key, see the leader on the cluster page, submit
 * a task with an HTTP target and watch it reach SUCCESS, cancel a future task, pause and resume a
 * schedule, see the live charts. Every API call is signed by the page itself (WebCrypto); the page's
 * signer is also checked against API.md's vectors in the browser, and the secret against storage.
 *
 * <p>Skipped (not failed) only where {@code /usr/bin/chromium} or {@code /usr/bin/chromedriver} is
 * missing; {@code .ci/run} installs both. With {@code -Dax.console.screenshots=docs/console} it writes
 * the screenshots of README's "Web console" section there (else under target/).
 */
class ConsoleIT {
  private static final Path CHROMIUM = Path.of(System.getProperty("ax.chromium", "/usr/bin/chromium"));
  private static final Path CHROMEDRIVER = Path.of(System.getProperty("ax.chromedriver", "/usr/bin/chromedriver"));
  static final Duration WAIT = Duration.ofSeconds(30);

  @BeforeAll
  static void aBrowserIsInstalled() {
    assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)");
  }

  static WebDriver browser() {
    ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
        .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
            "--window-size=1440,1000", "--force-device-scale-factor=1", "--lang=en-US");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    return new ChromeDriver(service, options);
  }

  private static Path screenshots() throws Exception {
    Path dir = Path.of(System.getProperty("ax.console.screenshots", "target/console-screenshots"));
    Files.createDirectories(dir);
    return dir;
  }

  static void screenshot(WebDriver driver, String name) throws Exception {
    File png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.copy(png.toPath(), screenshots().resolve(name + ".png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Waits for a condition after a sign-in; when it does not come, fails with what the page showed
   * instead (the error banner, the sign-in form's status, the route and the page's text) and keeps a
   * screenshot, so a failure on a CI machine says whether the credential was refused or the page stuck.
   */
  static <T> T untilSignedIn(WebDriver driver, WebDriverWait wait, ExpectedCondition<T> condition) throws Exception {
    try {
      return wait.until(condition);
    } catch (TimeoutException e) {
      Object shown;
      try {
        shown = ((JavascriptExecutor) driver).executeScript("""
          const text = (id) => {
            const e = document.getElementById(id);
            return e ? (e.hidden ? '(hidden) ' : '') + e.innerText : '(absent)';
          };
          return 'url: ' + location.href + '\\nerror banner: ' + text('error')
            + '\\nsign-in status: ' + text('signin-status') + '\\nwho: ' + text('who')
            + '\\npage: ' + document.getElementById('main').innerText.slice(0, 1500);""");
      } catch (RuntimeException unreadable) {
        shown = "(the page could not be read: " + unreadable.getMessage() + ")";
      }
      screenshot(driver, "failed-" + System.currentTimeMillis());
      throw new AssertionError(e.getMessage() + "\n" + shown, e);
    }
  }

  private static JsonObject callTo(Receiver receiver, String type) {
    return new JsonObject().put("task_type", type).put("callback_url", receiver.url()).put("max_retry", 0);
  }

  @Test
  void anOperatorSignsInSubmitsAndWatchesATaskCancelsAnotherAndPausesASchedule() throws Exception {
    try (TestPostgres pg = TestPostgres.create(); Receiver receiver = new Receiver();
         AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      // something to look at: a schedule, finished tasks of two outcomes, and a stream of due tasks for the charts
      ApiClient.Reply schedule = api.post("/openapi/v1/schedules", new JsonObject().put("name", "nightly-report")
          .put("cron", "0 2 * * *").put("time_zone", "Europe/Berlin").put("task", callTo(receiver, "report.build")).encode());
      assertEquals(201, schedule.status(), schedule.raw().body());
      String scheduleId = schedule.body().getString("schedule_id");
      ApiClient.Reply keyed = api.submit(callTo(receiver, "coupon.grant").put("biz_key", "order-7").put("delay_ms", 3_600_000));
      assertEquals(201, keyed.status(), keyed.raw().body());
      assertEquals(400, api.get("/openapi/v1/tasks?biz_key=order-7").status(), "biz_key is looked up with its task_type");
      for (int i = 0; i < 40; i++) {
        String type = i % 10 == 9 ? "coupon.grant.fail" : "coupon.grant";
        assertEquals(201, api.submit(callTo(receiver, type).put("delay_ms", i * 500)
            .put("payload", new JsonObject().put("user", i))).status());
      }

      WebDriver driver = browser();
      try {
        WebDriverWait wait = new WebDriverWait(driver, WAIT);
        String base = "http://127.0.0.1:" + ax.nodes.get(0).port + "/console/";
        driver.get(base);

        // sign in
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-accessKey"))).sendKeys(AxCluster.KEY);
        driver.findElement(By.id("signin-secret")).sendKeys(AxCluster.SECRET);
        driver.findElement(By.id("signin-submit")).click();

        // cluster: this single node leads, and its lease has an expiry
        untilSignedIn(driver, wait, ExpectedConditions.textToBe(By.id("cluster-role"), "leader"));
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("lease-holder"), "node-0/"));
        assertTrue(driver.findElement(By.id("lease-expires")).getText().contains("in "),
            driver.findElement(By.id("lease-expires")).getText());
        wait.until(d -> d.findElements(By.cssSelector("#nodes .s-leader")).size() == 1);
        screenshot(driver, "cluster");

        JavascriptExecutor js = (JavascriptExecutor) driver;
        assertEquals(0L, js.executeScript("return localStorage.length + sessionStorage.length + document.cookie.length"),
            "nothing of the credential is stored");
        assertEquals(List.of("6e5f2760ca9c56d38fa872a44dbea742d7ca91285e082d1591d89fa1d809f808",
                "37fcf9f5fa5d1190823eabab61d8d94a2f945f191dd5b7bf6aa1c82e4feb5b50"),
            js.executeAsyncScript(SIGNER_VECTORS), "the page's WebCrypto signer gives API.md's signatures");

        // submit a task with an HTTP target from the page and watch it reach SUCCESS
        driver.get(base + "#/tasks");
        wait.until(ExpectedConditions.elementToBeClickable(By.id("submit-open"))).click();
        driver.findElement(By.id("submit-task-type")).sendKeys("console.demo");
        WebElement delay = driver.findElement(By.id("submit-delay-ms"));
        delay.clear();
        delay.sendKeys("500");
        driver.findElement(By.id("submit-callback-url")).sendKeys(receiver.url());
        driver.findElement(By.id("submit-payload")).sendKeys("{\"order\": 1001}");
        driver.findElement(By.id("submit-send")).click();
        WebElement created = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-created")));
        String taskId = created.getText();
        created.click();
        wait.until(ExpectedConditions.textToBe(By.id("task-status"), "SUCCESS"));
        wait.until(d -> d.findElements(By.cssSelector("#task-attempts tbody tr .s-success")).size() == 1);
        assertTrue(receiver.byTask.containsKey(Long.parseLong(taskId)), "the receiver was called for " + taskId);
        assertEquals(1001, receiver.byTask.get(Long.parseLong(taskId)).get(0).body().getJsonObject("payload").getInteger("order"));
        screenshot(driver, "task-detail");

        // a task due in ten minutes, cancelled from its page
        driver.get(base + "#/tasks");
        wait.until(ExpectedConditions.elementToBeClickable(By.id("submit-open"))).click();
        driver.findElement(By.id("submit-task-type")).sendKeys("console.later");
        delay = driver.findElement(By.id("submit-delay-ms"));
        delay.clear();
        delay.sendKeys("600000");
        driver.findElement(By.id("submit-callback-url")).sendKeys(receiver.url());
        driver.findElement(By.id("submit-send")).click();
        created = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-created")));
        String laterId = created.getText();
        created.click();
        wait.until(ExpectedConditions.textToBe(By.id("task-status"), "DELAYED"));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("task-cancel"))).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBe(By.id("task-status"), "CANCELLED"));
        assertEquals("CANCELLED", api.get("/openapi/v1/tasks/" + laterId).body().getString("status"));

        // a second cancel is refused by the server, and the page shows its problem+json
        js.executeScript("document.getElementById('task-cancel').disabled = false");
        driver.findElement(By.id("task-cancel")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
        assertTrue(error.getText().contains("409"), error.getText());

        // search by status
        driver.get(base + "#/tasks?status=SUCCESS");
        wait.until(d -> d.findElements(By.cssSelector("#task-table tbody tr[data-task-id]")).size() >= 2);
        assertTrue(driver.findElements(By.cssSelector("#task-table tbody .badge")).stream()
            .allMatch(b -> b.getText().equals("SUCCESS")));
        // search by task type and biz_key, from the form
        driver.get(base + "#/tasks");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("search-task-type"))).sendKeys("coupon.grant");
        driver.findElement(By.id("search-biz-key")).sendKeys("order-7");
        driver.findElement(By.id("search-submit")).click();
        wait.until(d -> d.findElements(By.cssSelector("#task-table tbody tr[data-task-id]")).size() == 1
            && d.findElements(By.cssSelector("#task-table tbody tr[data-task-id='" + keyed.body().getString("task_id") + "']")).size() == 1);

        driver.get(base + "#/tasks");
        wait.until(d -> d.findElements(By.cssSelector("#task-table tbody tr[data-task-id]")).size() >= 40);
        screenshot(driver, "tasks");

        // schedules: pause, then resume
        driver.get(base + "#/schedules");
        By row = By.cssSelector("tr[data-schedule-id='" + scheduleId + "']");
        wait.until(ExpectedConditions.visibilityOfElementLocated(row));
        assertEquals(5, driver.findElements(By.cssSelector("tr[data-schedule-id='" + scheduleId + "'] .fire-times li")).size());
        driver.findElement(row).findElement(By.cssSelector("button.pause")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("tr[data-schedule-id='" + scheduleId + "'] .status"), "PAUSED"));
        assertEquals("PAUSED", api.get("/openapi/v1/schedules/" + scheduleId).body().getString("status"));
        wait.until(ExpectedConditions.elementToBeClickable(
            By.cssSelector("tr[data-schedule-id='" + scheduleId + "'] button.resume"))).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("tr[data-schedule-id='" + scheduleId + "'] .status"), "ACTIVE"));
        assertEquals("ACTIVE", api.get("/openapi/v1/schedules/" + scheduleId).body().getString("status"));
        screenshot(driver, "schedules");

        // live charts: drawn once two scrapes of /metrics are in
        for (int i = 0; i < 30; i++) {
          api.submit(callTo(receiver, i % 6 == 5 ? "coupon.grant.fail" : "coupon.grant").put("delay_ms", i * 400));
        }
        driver.get(base + "#/charts");
        wait.until(d -> d.findElements(By.cssSelector("#chart-throughput svg polyline")).size() >= 1);
        Thread.sleep(9_000); // a few more points, for the screenshot
        screenshot(driver, "charts");

        // reloading forgets the secret: the sign-in form again
        driver.navigate().refresh();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-form")));

        // this node runs without AX_ADMIN_JWT_SECRET: an admin token is answered 404, said plainly
        wait.until(ExpectedConditions.elementToBeClickable(By.id("signin-kind-admin-token"))).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-token"))).sendKeys("any.admin.token");
        driver.findElement(By.id("signin-submit")).click();
        error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
        assertTrue(error.getText().contains("The admin API is off on this node") && error.getText().contains("404"),
            error.getText());
        assertTrue(driver.findElement(By.id("signin-form")).isDisplayed(), "not signed in");
      } finally {
        driver.quit();
      }
    }
  }

  /** Signs API.md's two test vectors with the page's own module; answers [signature, signature]. */
  private static final String SIGNER_VECTORS = """
      const done = arguments[arguments.length - 1];
      import('./js/signing.js').then(async (s) => {
        const secret = 's3cr3t-key-0123456789abcdef', timestamp = '1764460800000';
        const post = await s.signRequest({ method: 'POST', path: '/openapi/v1/tasks', accessKey: 'k', secret, timestamp,
          nonce: 'n0nce-abc123', body: '{"task_type":"coupon.grant","delay_ms":5000,"callback_url":"https://hooks.example.com/grant","payload":{"user":42}}' });
        const get = await s.signRequest({ method: 'GET', path: '/openapi/v1/tasks', accessKey: 'k', secret, timestamp,
          nonce: 'n0nce-xyz789', rawQuery: 'task_type=coupon.grant&status=DELAYED&limit=50' });
        done([post['X-Ax-Signature'], get['X-Ax-Signature']]);
      }, (e) => done(String(e)));
      """;
}
