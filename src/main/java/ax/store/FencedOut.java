package ax.store;

import ax.leader.Fence;

/**
 * A fenced write found its leader term no longer current (the lease lapsed, or another node holds it in a
 * later epoch) and wrote nothing. Not an answer about the rows: a caller that reports refusals must
 * report this as "not recorded, send again", because the rows may well be the sender's to write — the
 * next leader will accept them.
 */
public final class FencedOut extends RuntimeException {
  public FencedOut(Fence fence) {
    super("the lease term of " + fence.holder() + " (epoch " + fence.epoch() + ") is no longer current; nothing written",
        null, false, false);
  }
}
