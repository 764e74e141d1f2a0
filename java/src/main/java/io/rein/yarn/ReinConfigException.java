package io.rein.yarn;

/** A {@code rein.*} key has a value outside its allowed range; the message names key, value and range. */
public class ReinConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public ReinConfigException(String message) {
    super(message);
  }
}
