package org.tessera;

/**
 * Element types ({@code tess_dtype}): the codes, their names ("f32", ...) and sizes.
 * The tensor and collective methods take the names; {@link #parse} and {@link #name}
 * convert.
 */
public final class DType {
  private DType() {}

  /** TESS_DTYPE_F32 from tessera.h. */
  public static final int F32 = TesseraJNI.DTYPE_F32_get();
  /** TESS_DTYPE_F64 from tessera.h. */
  public static final int F64 = TesseraJNI.DTYPE_F64_get();
  /** TESS_DTYPE_I32 from tessera.h. */
  public static final int I32 = TesseraJNI.DTYPE_I32_get();
  /** TESS_DTYPE_I64 from tessera.h. */
  public static final int I64 = TesseraJNI.DTYPE_I64_get();
  /** TESS_DTYPE_F16 from tessera.h. */
  public static final int F16 = TesseraJNI.DTYPE_F16_get();
  /** TESS_DTYPE_BF16 from tessera.h. */
  public static final int BF16 = TesseraJNI.DTYPE_BF16_get();
  /** TESS_DTYPE_BOOL from tessera.h: one byte, 0 or 1. */
  public static final int BOOL = TesseraJNI.DTYPE_BOOL_get();

  /**
   * Parses a dtype name.
   *
   * @param text "f32", "f64", "i32", "i64", "f16", "bf16" or "bool"
   * @return its code
   */
  public static int parse(String text) {
    int[] out = {0};
    TesseraJNI.dtype_parse(out, text);
    return out[0];
  }

  /**
   * The name of a dtype.
   *
   * @param dtype a dtype code
   * @return its name; "" for an unknown one
   */
  public static String name(int dtype) {
    return TesseraJNI.dtype_name(dtype);
  }

  /** Bytes per element of a known dtype code. */
  static long size(int dtype) {
    return dtype == F64 || dtype == I64 ? 8 : dtype == F16 || dtype == BF16 ? 2 : dtype == BOOL ? 1 : 4;
  }
}
