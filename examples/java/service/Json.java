package org.tessera.examples.service;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON (RFC 8259) reader and a small writer, enough for the service's bodies.
 * {@link #parse} returns Map (object, keys unique), List (array), String, Double
 * (number), Boolean or {@link #NULL}; anything malformed throws {@link Malformed} naming
 * the offset and what was wrong.
 */
final class Json {
  private Json() {}

  /** JSON null. */
  static final Object NULL = new Object() {
    @Override
    public String toString() {
      return "null";
    }
  };

  /** A body that is not JSON; the message says where and why. */
  static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  /** Deeper nesting than this is refused (no stack overflow on hostile bodies). */
  private static final int MAX_DEPTH = 64;

  static Object parse(String text) throws Malformed {
    Reader r = new Reader(text);
    r.skipSpace();
    Object value = r.value(0);
    r.skipSpace();
    if (r.pos != text.length()) {
      throw r.error("unexpected data after the JSON value");
    }
    return value;
  }

  private static final class Reader {
    final String s;
    int pos;

    Reader(String s) {
      this.s = s;
    }

    Malformed error(String what) {
      return new Malformed("body is not valid JSON: " + what + " at offset " + pos);
    }

    void skipSpace() {
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        ++pos;
      }
    }

    Object value(int depth) throws Malformed {
      if (depth > MAX_DEPTH) {
        throw error("nested deeper than " + MAX_DEPTH);
      }
      if (pos >= s.length()) {
        throw error("unexpected end");
      }
      char c = s.charAt(pos);
      switch (c) {
        case '{':
          return object(depth);
        case '[':
          return array(depth);
        case '"':
          return string();
        case 't':
          return literal("true", Boolean.TRUE);
        case 'f':
          return literal("false", Boolean.FALSE);
        case 'n':
          return literal("null", NULL);
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw error("unexpected character '" + printable(c) + "'");
      }
    }

    Object literal(String word, Object value) throws Malformed {
      if (!s.startsWith(word, pos)) {
        throw error("unexpected character '" + printable(s.charAt(pos)) + "'");
      }
      pos += word.length();
      return value;
    }

    Map<String, Object> object(int depth) throws Malformed {
      Map<String, Object> map = new LinkedHashMap<>();
      ++pos;  // {
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == '}') {
        ++pos;
        return map;
      }
      while (true) {
        skipSpace();
        if (pos >= s.length() || s.charAt(pos) != '"') {
          throw error("expected a string key");
        }
        int keyAt = pos;
        String key = string();
        skipSpace();
        expect(':');
        skipSpace();
        Object v = value(depth + 1);
        if (map.put(key, v) != null) {
          pos = keyAt;
          throw error("duplicate key \"" + key + "\"");
        }
        skipSpace();
        if (pos < s.length() && s.charAt(pos) == ',') {
          ++pos;
          continue;
        }
        expect('}');
        return map;
      }
    }

    List<Object> array(int depth) throws Malformed {
      List<Object> list = new ArrayList<>();
      ++pos;  // [
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == ']') {
        ++pos;
        return list;
      }
      while (true) {
        skipSpace();
        list.add(value(depth + 1));
        skipSpace();
        if (pos < s.length() && s.charAt(pos) == ',') {
          ++pos;
          continue;
        }
        expect(']');
        return list;
      }
    }

    void expect(char c) throws Malformed {
      if (pos >= s.length()) {
        throw error("expected '" + c + "' but the body ended");
      }
      if (s.charAt(pos) != c) {
        throw error("expected '" + c + "' but found '" + printable(s.charAt(pos)) + "'");
      }
      ++pos;
    }

    String string() throws Malformed {
      ++pos;  // "
      StringBuilder b = new StringBuilder();
      while (true) {
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos++);
        if (c == '"') {
          return b.toString();
        }
        if (c < 0x20) {
          --pos;
          throw error("unescaped control character in a string");
        }
        if (c != '\\') {
          b.append(c);
          continue;
        }
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char e = s.charAt(pos++);
        switch (e) {
          case '"':
          case '\\':
          case '/':
            b.append(e);
            break;
          case 'b':
            b.append('\b');
            break;
          case 'f':
            b.append('\f');
            break;
          case 'n':
            b.append('\n');
            break;
          case 'r':
            b.append('\r');
            break;
          case 't':
            b.append('\t');
            break;
          case 'u':
            if (pos + 4 > s.length()) {
              throw error("short \\u escape");
            }
            int code = 0;
            for (int i = 0; i < 4; ++i) {
              int d = Character.digit(s.charAt(pos + i), 16);
              if (d < 0) {
                throw error("bad \\u escape");
              }
              code = code * 16 + d;
            }
            pos += 4;
            b.append((char) code);
            break;
          default:
            pos -= 2;
            throw error("bad escape '\\" + printable(e) + "'");
        }
      }
    }

    /** -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    Double number() throws Malformed {
      int start = pos;
      if (s.charAt(pos) == '-') {
        ++pos;
      }
      if (pos < s.length() && s.charAt(pos) == '0') {
        ++pos;
      } else if (digits() == 0) {
        throw error("bad number");
      }
      if (pos < s.length() && s.charAt(pos) == '.') {
        ++pos;
        if (digits() == 0) {
          throw error("bad number: no digits after '.'");
        }
      }
      if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
        ++pos;
        if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
          ++pos;
        }
        if (digits() == 0) {
          throw error("bad number: no digits in the exponent");
        }
      }
      return Double.parseDouble(s.substring(start, pos));
    }

    int digits() {
      int n = 0;
      while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
        ++pos;
        ++n;
      }
      return n;
    }
  }

  private static String printable(char c) {
    return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
  }

  /** {@code text} as a JSON string literal. */
  static String quote(String text) {
    StringBuilder b = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); ++i) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          b.append("\\\"");
          break;
        case '\\':
          b.append("\\\\");
          break;
        case '\n':
          b.append("\\n");
          break;
        case '\r':
          b.append("\\r");
          break;
        case '\t':
          b.append("\\t");
          break;
        default:
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
      }
    }
    return b.append('"').toString();
  }

  /** {"error": message}. */
  static String error(String message) {
    return "{\"error\": " + quote(message) + "}";
  }

  /** What a JSON value is, for messages: "a string", "an object", ... */
  static String kind(Object v) {
    if (v instanceof Map) {
      return "an object";
    } else if (v instanceof List) {
      return "a list";
    } else if (v instanceof String) {
      return "a string";
    } else if (v instanceof Double) {
      return "a number";
    } else if (v instanceof Boolean) {
      return "a boolean";
    }
    return "null";
  }
}
