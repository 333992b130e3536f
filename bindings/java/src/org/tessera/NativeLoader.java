package org.tessera;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads {@code libtessera_jni.so} (and, through its RUNPATH {@code $ORIGIN}, the
 * {@code libtessera} beside it) once, from the first place that has it:
 *
 * <ol>
 *   <li>the directory named by the system property {@code tessera.library.path};
 *   <li>a directory on {@code java.library.path};
 *   <li>the jar's resources under {@code native/<os>-<arch>/}, listed in
 *       {@code native/<os>-<arch>/libraries} (dependencies first): copied into a new
 *       directory made by {@link Files#createTempDirectory} (owner-only permissions),
 *       loaded from there, and deleted once loaded (a loaded library stays mapped) or,
 *       should that fail, at exit.
 * </ol>
 *
 * <p>Package-private: TesseraJNI's static initialiser calls {@link #load()}.
 */
final class NativeLoader {
  static final String JNI_LIBRARY = "libtessera_jni.so";
  static final String PATH_PROPERTY = "tessera.library.path";

  private static String loadedFrom = null;

  private NativeLoader() {}

  /** The resource folder of this platform, e.g. "native/linux-x86_64". */
  static String platformFolder() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) {
      os = "linux";
    }
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (arch.equals("amd64") || arch.equals("x86-64")) {
      arch = "x86_64";
    } else if (arch.equals("arm64")) {
      arch = "aarch64";
    }
    return "native/" + os + "-" + arch;
  }

  /** Loads the JNI library unless loaded; throws UnsatisfiedLinkError saying where it looked. */
  static synchronized void load() {
    if (loadedFrom != null) {
      return;
    }
    String dir = System.getProperty(PATH_PROPERTY);
    if (dir != null && !dir.isEmpty()) {
      File lib = new File(dir, JNI_LIBRARY);
      if (!lib.isFile()) {
        throw new UnsatisfiedLinkError("tessera: -D" + PATH_PROPERTY + "=" + dir + " has no "
            + JNI_LIBRARY);
      }
      loadFile(lib);
      return;
    }
    for (String entry : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
      File lib = new File(entry.isEmpty() ? "." : entry, JNI_LIBRARY);
      if (lib.isFile()) {
        loadFile(lib);
        return;
      }
    }
    String folder = platformFolder();
    List<String> names = listing(folder);
    if (names.isEmpty()) {
      throw new UnsatisfiedLinkError("tessera: no " + JNI_LIBRARY + " in -D" + PATH_PROPERTY
          + ", java.library.path or this jar's " + folder + "/ (a jar for another platform?)");
    }
    extractAndLoad(folder, names);
  }

  /** The file the JNI library was loaded from (deleted since when it was extracted). */
  static synchronized String loadedFrom() {
    return loadedFrom;
  }

  private static void loadFile(File lib) {
    System.load(lib.getAbsolutePath());
    loadedFrom = lib.getAbsolutePath();
  }

  /** The library names listed in {@code folder/libraries}, or none. */
  private static List<String> listing(String folder) {
    List<String> names = new ArrayList<>();
    try (InputStream in = NativeLoader.class.getClassLoader()
        .getResourceAsStream(folder + "/libraries")) {
      if (in == null) {
        return names;
      }
      for (String line : new String(in.readAllBytes(), "UTF-8").split("\n")) {
        String name = line.trim();
        if (!name.isEmpty()) {
          if (name.contains("/") || name.startsWith(".")) {
            throw new UnsatisfiedLinkError("tessera: bad library name in the jar: " + name);
          }
          names.add(name);
        }
      }
    } catch (IOException e) {
      throw link("reading " + folder + "/libraries", e);
    }
    return names;
  }

  private static void extractAndLoad(String folder, List<String> names) {
    Path dir;
    try {
      dir = Files.createTempDirectory("tessera-native-");
    } catch (IOException e) {
      throw link("creating a temporary directory", e);
    }
    List<Path> files = new ArrayList<>();
    try {
      for (String name : names) {
        Path file = dir.resolve(name);
        try (InputStream in = NativeLoader.class.getClassLoader()
            .getResourceAsStream(folder + "/" + name)) {
          if (in == null) {
            throw new UnsatisfiedLinkError("tessera: the jar lists " + folder + "/" + name
                + " but lacks it");
          }
          Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        files.add(file);
      }
      // The JNI library last: its DT_NEEDED libtessera resolves beside it ($ORIGIN).
      loadFile(dir.resolve(JNI_LIBRARY).toFile());
    } catch (IOException e) {
      throw link("extracting " + folder + " to " + dir, e);
    } finally {
      delete(files, dir);
    }
  }

  /** Deletes the extracted files now; what cannot go now goes at exit (dir first registered: deleteOnExit runs in reverse). */
  private static void delete(List<Path> files, Path dir) {
    boolean gone = true;
    for (Path f : files) {
      gone &= f.toFile().delete();
    }
    if (!gone || !dir.toFile().delete()) {
      dir.toFile().deleteOnExit();
      for (Path f : files) {
        f.toFile().deleteOnExit();
      }
    }
  }

  private static UnsatisfiedLinkError link(String what, IOException e) {
    UnsatisfiedLinkError error = new UnsatisfiedLinkError("tessera: " + what + ": " + e);
    error.initCause(e);
    return error;
  }
}
