package ax.client;

import ax.client.api.SchedulesApi;
import ax.client.api.TasksApi;
import ax.client.invoker.ApiClient;
import java.util.Objects;
import okhttp3.OkHttpClient;

/**
 * The generated {@link TasksApi}, signing every request:
 *
 * <pre>{@code
 * TasksApi tasks = AxClient.builder().baseUrl("http://localhost:8080").accessKey(ak).secret(sk).build();
 * TaskCreated t = tasks.createTask(new TaskRequest().taskType("coupon.grant").processor("grant").delayMs(5_000L));
 * }</pre>
 */
public final class AxClient {
  private AxClient() {
  }

  public static Builder builder() {
    return new Builder();
  }

  /** What a client needs: where the node is and the key pair it signs with. */
  public static final class Builder {
    private String baseUrl;
    private String accessKey;
    private String secret;
    private OkHttpClient http = new OkHttpClient();

    private Builder() {
    }

    /** The node's address, e.g. {@code http://localhost:8080} (no trailing path). */
    public Builder baseUrl(String baseUrl) {
      this.baseUrl = baseUrl;
      return this;
    }

    public Builder accessKey(String accessKey) {
      this.accessKey = accessKey;
      return this;
    }

    public Builder secret(String secret) {
      this.secret = secret;
      return this;
    }

    /** An OkHttp client of your own (timeouts, a proxy, more interceptors); the signer is added last. */
    public Builder httpClient(OkHttpClient http) {
      this.http = Objects.requireNonNull(http, "http");
      return this;
    }

    public TasksApi build() {
      return new TasksApi(apiClient());
    }

    /** The generated {@link SchedulesApi} (recurring schedules), signing like {@link #build()}. */
    public SchedulesApi buildSchedules() {
      return new SchedulesApi(apiClient());
    }

    private ApiClient apiClient() {
      if (baseUrl == null || baseUrl.isEmpty()) {
        throw new IllegalStateException("baseUrl is required");
      }
      // last, so that it signs the request exactly as the interceptors before it left it
      OkHttpClient signing = http.newBuilder().addInterceptor(new SigningInterceptor(accessKey, secret)).build();
      ApiClient api = new ApiClient(signing);
      api.setBasePath(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
      return api;
    }
  }
}
