package ax.store;

/** Java arrays as the pg client binds them to PostgreSQL array parameters ({@code bigint[]} wants boxes). */
final class SqlArrays {
  private SqlArrays() {
  }

  static Long[] boxed(long[] ids) {
    Long[] out = new Long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = ids[i];
    }
    return out;
  }
}
