package org.tessera;

/**
 * A compiled {@link Program} for this rank: its steps (kernels and explicit boxing) and
 * its register memory. Local; run it through a {@link PlanInstance}.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class Plan extends Handle {
  Plan(long pointer) {
    super(pointer, TesseraJNI::delete_Plan);
  }

  /**
   * Compiles {@code program} for this rank: its steps (kernels and explicit boxing) and
   * its register memory, packed with reuse. {@code inputRegisterNum}: copies of each
   * data input's register (0 means 1; tess_plan_compile gives the range). Local.
   */
  public static Plan compile(Program program, int inputRegisterNum) {
    long[] out = {0};
    Tessera.init();
    TesseraJNI.plan_compile(out, Handle.ptr(program), program, inputRegisterNum);
    return new Plan(out[0]);
  }

  /** Destroys the plan now; idempotent. Its instances keep what they need. */
  @Override
  public void close() {
    super.close();
  }

  /** The program, the steps ("3: box %1 S(1) -> B into r4") and the memory table. */
  @Override
  public String toString() {
    return TesseraJNI.plan_string(ptr(), this);
  }

  /** A runnable instance: its register memory is allocated once, here. Local. */
  public PlanInstance instantiate() {
    long[] out = {0};
    TesseraJNI.plan_instantiate(out, ptr(), this);
    return new PlanInstance(out[0]);
  }
}
