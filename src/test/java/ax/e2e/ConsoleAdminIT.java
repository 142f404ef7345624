package ax.e2e;

import ax.testing.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's Administration page in a real browser (as {@link ConsoleIT}: Debian's chromium,
 * headless), against the jar started with the admin API on: sign in with an admin token minted by the
 * CLI (and see a bad one refused with the server's detail), create a tenant and a key from the page,
 * read the secret from its one-time panel, rotate it, sign in with that key as the tenant and submit a
 * task, then disable (refused by the API within 1 s), enable and delete it from the page, and find
 * every action in the audit log under {@code admin-api:<subject>}, paged by {@code next_before}.
 * A secret must be gone from the page once its panel is dismissed, and never in storage or the URL.
 */
class ConsoleAdminIT {
  private static final String SUBJECT = "carol";
  private static final long ONE_SECOND_MS = 1_000;

  @BeforeAll
  static void aBrowserIsInstalled() {
    ConsoleIT.aBrowserIsInstalled();
  }

  @Test
  void anAdministratorManagesATenantAndItsKeyFromTheConsoleAndTheTenantSignsInWithIt() throws Exception {
    try (TestPostgres pg = TestPostgres.create();
         AxCluster ax = AxCluster.start(pg, 1, Map.of("AX_ADMIN_JWT_SECRET", AdminIT.JWT_SECRET,
             "AX_MASTER_KEY", AdminIT.MASTER_KEY))) {
      String token = AdminIT.cli(Map.of("AX_ADMIN_JWT_SECRET", AdminIT.JWT_SECRET), "admin-token", "--subject", SUBJECT)
          .trim();
      int port = ax.nodes.get(0).port;
      WebDriver driver = ConsoleIT.browser();
      try {
        WebDriverWait wait = new WebDriverWait(driver, ConsoleIT.WAIT);
        JavascriptExecutor js = (JavascriptExecutor) driver;
        String base = "http://127.0.0.1:" + port + "/console/";
        driver.get(base);

        // a token the node refuses: its 401 detail is shown, and nobody is signed in
        signInWithToken(driver, wait, "not-a-jwt");
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
        assertTrue(error.getText().contains("Admin token refused"), error.getText());
        assertTrue(error.getText().contains("401"), error.getText());
        assertTrue(error.getText().contains("the admin token was refused: it is not a well-formed JWT"), error.getText());
        assertTrue(driver.findElement(By.id("signin-form")).isDisplayed());

        // the CLI's token: the Administration page
        driver.findElement(By.id("signin-token")).clear();
        signInWithToken(driver, wait, token);
        ConsoleIT.untilSignedIn(driver, wait, ExpectedConditions.visibilityOfElementLocated(By.id("tenants-table")));
        assertTrue(driver.findElement(By.id("who")).getText().contains(SUBJECT), driver.findElement(By.id("who")).getText());
        assertTrue(driver.findElement(By.id("nav-admin")).isDisplayed());
        // a tenant page says it needs an access key; the cluster page needs nothing
        driver.get(base + "#/tasks");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#needs-credential[data-needs='tenant']")));
        driver.get(base + "#/cluster");
        wait.until(ExpectedConditions.textToBe(By.id("cluster-role"), "leader"));

        // a tenant, created from the page
        driver.get(base + "#/admin/tenants");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("admin-tenant-id"))).sendKeys("shop");
        driver.findElement(By.id("admin-tenant-name")).sendKeys("Shop");
        driver.findElement(By.id("admin-tenant-create")).click();
        By shopRow = By.cssSelector("#tenants-table tr[data-tenant-id='shop']");
        wait.until(ExpectedConditions.visibilityOfElementLocated(shopRow));
        assertTrue(driver.findElement(shopRow).getText().contains("Shop"));

        // its first key: the secret is shown once, in the panel
        driver.findElement(shopRow).findElement(By.cssSelector("a.keys-link")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("admin-key-create"))).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("secret-panel")));
        String accessKey = driver.findElement(By.id("secret-access-key")).getText();
        String secret = driver.findElement(By.id("secret-value")).getText();
        assertTrue(accessKey.startsWith("ak_") && secret.length() >= 16, accessKey + " / " + secret.length());
        assertTrue(driver.findElement(By.id("secret-warning")).getText().contains("only time it is shown"));
        By keyRow = By.cssSelector("#keys-table tr[data-access-key='" + accessKey + "']");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(keyRow, "active"));
        ConsoleIT.screenshot(driver, "administration");
        driver.findElement(By.id("secret-copy")).click();
        wait.until(d -> !d.findElement(By.id("secret-copied")).getText().isEmpty());
        assertSecretNowhereButThePanel(driver, js, secret);
        driver.findElement(By.id("secret-dismiss")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.id("secret-panel"), 0));
        assertFalse(driver.getPageSource().contains(secret), "the secret left the page with its panel");
        ApiClient created = new ApiClient(port, accessKey, secret);
        assertEquals(200, created.get("/openapi/v1/tasks?limit=1").status(), "the panel's secret signs");

        // rotated from the page with no grace: a new secret in the panel, the old one refused
        driver.findElement(keyRow).findElement(By.cssSelector("button.rotate")).click();
        WebElement grace = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("rotate-grace")));
        grace.clear();
        grace.sendKeys("0");
        driver.findElement(By.id("rotate-confirm")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("secret-panel")));
        String rotatedSecret = driver.findElement(By.id("secret-value")).getText();
        assertNotEquals(secret, rotatedSecret);
        assertEquals(accessKey, driver.findElement(By.id("secret-access-key")).getText());
        assertTrue(driver.findElement(By.id("secret-panel")).getText().contains("refused from now on"));
        driver.findElement(By.id("secret-dismiss")).click();
        wait.until(ExpectedConditions.numberOfElementsToBe(By.id("secret-panel"), 0));
        assertFalse(driver.getPageSource().contains(rotatedSecret));
        ApiClient tenantApi = new ApiClient(port, accessKey, rotatedSecret);
        assertTrue(AdminIT.msUntilStatus(tenantApi, 200, ONE_SECOND_MS) <= ONE_SECOND_MS);
        assertEquals(401, created.get("/openapi/v1/tasks?limit=1").status(), "grace 0: the old secret is refused");

        // the tenant signs in with that key and submits a task from the Tasks page
        driver.findElement(By.id("sign-out")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("signin-kind-access-key"))).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-accessKey"))).sendKeys(accessKey);
        driver.findElement(By.id("signin-secret")).sendKeys(rotatedSecret);
        driver.findElement(By.id("signin-submit")).click();
        ConsoleIT.untilSignedIn(driver, wait, ExpectedConditions.textToBe(By.id("cluster-role"), "leader"));
        assertFalse(driver.findElement(By.id("nav-admin")).isDisplayed(), "an access key sees no Administration menu");
        driver.get(base + "#/tasks");
        wait.until(ExpectedConditions.elementToBeClickable(By.id("submit-open"))).click();
        driver.findElement(By.id("submit-task-type")).sendKeys("shop.order");
        WebElement delay = driver.findElement(By.id("submit-delay-ms"));
        delay.clear();
        delay.sendKeys("600000");
        driver.findElement(By.id("submit-callback-url")).sendKeys("http://127.0.0.1:9/order");
        driver.findElement(By.id("submit-send")).click();
        String taskId = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("submit-created"))).getText();
        assertEquals("shop.order", tenantApi.get("/openapi/v1/tasks/" + taskId).body().getString("task_type"));
        assertEquals(404, ax.api(0).get("/openapi/v1/tasks/" + taskId).status(), "the task is the shop tenant's");
        driver.get(base + "#/admin");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#needs-credential[data-needs='admin']")));

        // back as the administrator: disable (refused within 1 s), enable, delete — each confirmed
        driver.findElement(By.id("needs-sign-in")).click();
        signInWithToken(driver, wait, token);
        ConsoleIT.untilSignedIn(driver, wait, ExpectedConditions.visibilityOfElementLocated(By.id("tenants-table")));
        driver.get(base + "#/admin/keys?tenant_id=shop");
        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#keys-table tr[data-access-key='" + accessKey
            + "'] button.disable"))).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        long refusedAfter = AdminIT.msUntilStatus(tenantApi, 401, 5_000);
        System.out.println("ConsoleAdminIT: disabled from the page, refused by the API after " + refusedAfter + " ms");
        assertTrue(refusedAfter <= ONE_SECOND_MS, "refused " + refusedAfter + " ms after the confirmation");
        assertEquals("unknown_key", tenantApi.get("/openapi/v1/tasks?limit=1").code());
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("#keys-table tr[data-access-key='" + accessKey + "'] .status"), "disabled"));

        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#keys-table tr[data-access-key='" + accessKey
            + "'] button.enable"))).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        assertTrue(AdminIT.msUntilStatus(tenantApi, 200, 5_000) <= ONE_SECOND_MS, "enabled again within 1 s");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("#keys-table tr[data-access-key='" + accessKey + "'] .status"), "active"));

        wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector("#keys-table tr[data-access-key='" + accessKey
            + "'] button.delete"))).click();
        wait.until(ExpectedConditions.alertIsPresent()).dismiss(); // not confirmed: nothing happens
        Thread.sleep(300);
        assertEquals(200, tenantApi.get("/openapi/v1/tasks?limit=1").status(), "a change not confirmed is not made");
        driver.findElement(keyRow).findElement(By.cssSelector("button.delete")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.numberOfElementsToBe(keyRow, 0));
        assertTrue(AdminIT.msUntilStatus(tenantApi, 401, 5_000) <= ONE_SECOND_MS, "deleted: refused within 1 s");

        // the audit log: every action, newest first, by admin-api:carol
        driver.get(base + "#/admin/audit");
        wait.until(d -> d.findElements(By.cssSelector("#audit-table tr[data-audit-id]")).size() >= 6);
        List<WebElement> rows = driver.findElements(By.cssSelector("#audit-table tr[data-audit-id]"));
        List<String> actions = rows.stream().map(r -> r.getAttribute("data-action")).toList();
        assertEquals(List.of("key.delete", "key.enable", "key.disable", "key.rotate", "key.create", "tenant.create"),
            actions.subList(0, 6), "newest first");
        for (WebElement r : rows.subList(0, 6)) {
          assertEquals("admin-api:" + SUBJECT, r.findElement(By.cssSelector(".actor")).getText());
          String target = r.findElement(By.cssSelector(".target")).getText();
          assertTrue(target.equals(accessKey) || target.equals("shop"), target);
        }
        assertFalse(driver.getPageSource().contains(rotatedSecret), "no secret in the audit log");

        // paged: two at a time, older entries by next_before
        driver.get(base + "#/admin/audit?limit=2");
        wait.until(d -> d.findElements(By.cssSelector("#audit-table tr[data-audit-id]")).size() == 2);
        wait.until(ExpectedConditions.elementToBeClickable(By.id("audit-older"))).click();
        wait.until(d -> d.findElements(By.cssSelector("#audit-table tr[data-audit-id]")).size() == 4);
        List<String> paged = driver.findElements(By.cssSelector("#audit-table tr[data-audit-id]")).stream()
            .map(r -> r.getAttribute("data-action")).toList();
        assertEquals(actions.subList(0, 4), paged, "the second page continues the first");

        assertEquals(0L, js.executeScript("return localStorage.length + sessionStorage.length + document.cookie.length"),
            "nothing of the credentials is stored");
      } finally {
        driver.quit();
      }
    }
  }

  private static void signInWithToken(WebDriver driver, WebDriverWait wait, String token) {
    wait.until(ExpectedConditions.elementToBeClickable(By.id("signin-kind-admin-token"))).click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signin-token"))).sendKeys(token);
    driver.findElement(By.id("signin-submit")).click();
  }

  /** While its panel shows, the secret is in the panel's text only: not in storage, the URL or an attribute. */
  private static void assertSecretNowhereButThePanel(WebDriver driver, JavascriptExecutor js, String secret) {
    assertFalse(driver.getCurrentUrl().contains(secret), "not in the URL");
    assertEquals(0L, js.executeScript("return localStorage.length + sessionStorage.length + document.cookie.length"),
        "not in storage");
    assertEquals(1L, js.executeScript("""
        const secret = arguments[0];
        let found = 0;
        const walk = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
        while (walk.nextNode()) { if (walk.currentNode.nodeValue.includes(secret)) found++; }
        for (const el of document.querySelectorAll('*')) {
          for (const a of el.attributes) { if (a.value.includes(secret)) found += 100; }
          if ('value' in el && typeof el.value === 'string' && el.value.includes(secret)) found += 100;
        }
        return found;""", secret), "the secret is one text node (the panel's), in no attribute or input");
  }
}
