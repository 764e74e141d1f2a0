package io.rein.yarn;

/** The native engine could not be loaded or failed; the shim falls back when it sees one. */
public class ReinNativeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ReinNativeException(String message) {
    super(message);
  }

  public ReinNativeException(String message, Throwable cause) {
    super(message, cause);
  }
}
