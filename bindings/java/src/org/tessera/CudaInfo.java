package org.tessera;

/**
 * What CUDA this process has ({@link Tessera#cudaInfo()}): without a CUDA build, tensor
 * calls on cuda placements throw UNIMPLEMENTED, with one but no device UNAVAILABLE.
 */
public final class CudaInfo {
  /** The library was built with CUDA (--config=cuda). */
  public final boolean builtWithCuda;
  /** CUDA devices visible to this process (0 without a CUDA build or a GPU). */
  public final int deviceCount;

  CudaInfo(boolean builtWithCuda, int deviceCount) {
    this.builtWithCuda = builtWithCuda;
    this.deviceCount = deviceCount;
  }

  @Override
  public String toString() {
    return "CudaInfo(builtWithCuda=" + builtWithCuda + ", deviceCount=" + deviceCount + ")";
  }
}
