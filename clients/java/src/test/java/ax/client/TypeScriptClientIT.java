package ax.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The generated TypeScript client against a node from the jar: node runs the smoke script that
 * clients/typescript built (dist/smoke/smoke.js), which makes every call a caller makes and checks the
 * answers; it exits 0 only when all of them passed.
 */
class TypeScriptClientIT {

  @Test
  void theTypeScriptClientMakesEveryCallAgainstALiveNode() throws Exception {
    Path dir = Path.of(System.getProperty("ax.typescript.dir", "../typescript"));
    File smoke = dir.resolve("dist/smoke/smoke.js").toFile();
    assertTrue(smoke.isFile(), smoke + " is missing: build clients/typescript first (the root build does)");
    try (LiveNode node = LiveNode.start()) {
      Path out = Files.createTempFile("ax-ts-smoke-", ".log");
      ProcessBuilder pb = new ProcessBuilder("node", smoke.getAbsolutePath()).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(out.toFile());
      pb.environment().put("AX_URL", node.baseUrl());
      pb.environment().put("AX_ACCESS_KEY", LiveNode.ACCESS_KEY);
      pb.environment().put("AX_SECRET", LiveNode.SECRET);
      pb.environment().put("AX_CALLBACK_URL", node.callbackUrl());
      Process p = pb.start();
      boolean ended = p.waitFor(90, TimeUnit.SECONDS);
      if (!ended) {
        p.destroyForcibly().waitFor();
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      assertTrue(ended, "the smoke script did not end within 90 s:\n" + output);
      assertEquals(0, p.exitValue(), "the smoke script failed:\n" + output + "\nnode log:\n" + node.output());
      assertTrue(output.contains("8 checks passed"), output);
    }
  }
}
