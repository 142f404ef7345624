package ax.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NettyCompatibilityTest {

  @Test
  void nettyFourOneIsRefusedWithTheVersionAndTheFix() {
    AxExecutorConfigurationException e = NettyCompatibility.problem(false, "4.1.128.Final").orElseThrow();
    assertThat(e.description()).contains("needs Netty 4.2").contains("netty-common 4.1.128.Final");
    assertThat(e.action()).contains("<netty.version>" + NettyCompatibility.VERSION + "</netty.version>")
        .contains("io.netty:netty-bom:" + NettyCompatibility.VERSION);
  }

  @Test
  void anUnknownOldVersionIsStillRefused() {
    assertThat(NettyCompatibility.problem(false, null)).isPresent();
  }

  @Test
  void nettyFourTwoPasses() {
    assertThat(NettyCompatibility.problem(true, "4.2.9.Final")).isEmpty();
  }

  @Test
  void aClasspathWithoutNettyFourTwosEventLoopIsRefused() {
    FilteredClassLoader netty41 =
        new FilteredClassLoader(name -> name.equals("io.netty.channel.MultiThreadIoEventLoopGroup"));
    assertThatThrownBy(() -> NettyCompatibility.check(netty41))
        .isInstanceOf(AxExecutorConfigurationException.class).hasMessageContaining("needs Netty 4.2");
  }

  @Test
  void thisBuildsClasspathHasNettyFourTwo() {
    assertThatCode(() -> NettyCompatibility.check(getClass().getClassLoader())).doesNotThrowAnyException();
  }
}
