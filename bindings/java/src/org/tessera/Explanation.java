package org.tessera;

/**
 * The full inference record of one op call: every candidate signature and why it was
 * kept or dropped, as text or JSON.
 *
 * <p>Closing frees the C object at once; an unclosed one is freed when collected.
 */
public final class Explanation extends Handle {
  Explanation(long pointer) {
    super(pointer, TesseraJNI::delete_Explanation);
  }

  /** Destroys the explanation now; idempotent. */
  @Override
  public void close() {
    super.close();
  }

  /** The multi-line readable record. */
  public String text() {
    return TesseraJNI.explanation_text(ptr(), this);
  }

  /** The record as one JSON object. */
  public String json() {
    return TesseraJNI.explanation_json(ptr(), this);
  }

  /** "" when a signature was chosen; else the message inference fails with. */
  public String failure() {
    return TesseraJNI.explanation_failure(ptr(), this);
  }

  @Override
  public String toString() {
    return text();
  }
}
