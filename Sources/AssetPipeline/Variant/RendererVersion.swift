import AssetStorage

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What makes a variant's pixels and bytes, as one short text for its cache key and `ETag`
/// (``VariantKey``): the package's version and pixel revision, and the files of the libraries
/// that decode, convert, render and encode, as they are on this machine.
///
/// - **Libraries by their files**: each library (libpng, libjpeg-turbo, libwebp, libavif with dav1d
///   and libaom, giflib, libheif with libde265, libtiff, librsvg with cairo, libjxl, lcms2, rlottie,
///   FFmpeg's libraries with libx264) is named by the file name and size of its shared object in the system's
///   library folders, found without loading it (several are opened only on first use). A package
///   upgrade, a security rebuild that keeps the version string included, changes the name or the
///   size, so variants made by the old build are not served under the new one's key.
/// - **Our code**: `AssetPipelineVersion.current` and ``pixelRevision``, which a change that alters
///   any output pixel or byte (the resampler, the encoders' settings, a decoder's contract, Lottie's
///   JSON rewrites) bumps.
/// - Machines of a tier with the same packages and build have the same version, so they share
///   variants (a derived store, a peer's answer).
///
/// ```swift
/// print(RendererVersion.current)   // "r-3f1c0a9b27d4e815"
/// ```
public enum RendererVersion {
    /// The revision of our pixel-making code; bump it with any change that alters an output.
    public static let pixelRevision = 4

    /// The libraries named by their files (base names, as in `lib<name>.so`).
    static let libraries = [
        "png16", "jpeg", "webp", "webpdemux", "webpmux", "cgif", "avif", "dav1d", "aom", "gif", "heif", "de265", "tiff",
        "rsvg-2", "cairo", "jxl", "lcms2", "rlottie", "avformat", "avcodec", "swscale", "avutil", "x264",
    ]

    /// This process's version: `r-` and 16 hexadecimal digits of an XXH3-128 over ``components``.
    public static let current: String = make(components: components)

    /// What ``current`` is made of, one line each: our code, then each library's files
    /// (`libheif.so.1.15.1 1063352`, or `libheif -` when none is found).
    public static let components: [String] = {
        var lines = ["assetpipe \(AssetPipelineVersion.current) pixels \(pixelRevision)"]
        let files = libraryFiles()
        for name in libraries {
            let found = files.filter { $0.name.hasPrefix("lib\(name).so.") }.map { "\($0.name) \($0.size)" }.sorted()
            lines.append(found.isEmpty ? "lib\(name) -" : found.joined(separator: ", "))
        }
        return lines
    }()

    /// The version of `components`: a change in any line changes it.
    public static func make(components: [String]) -> String {
        let checksum = BytesChecksum.string(of: Array(components.joined(separator: "\n").utf8))
        return "r-" + checksum.drop { $0 != ":" }.dropFirst().prefix(16)
    }

    /// The regular files (not links) named `lib*.so.*` in the system's library folders.
    static func libraryFiles() -> [(name: String, size: Int)] {
        var system = utsname()
        uname(&system)
        let machine = withUnsafeBytes(of: system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let folders = ["/usr/lib/\(machine)-linux-gnu", "/lib/\(machine)-linux-gnu", "/usr/local/lib", "/usr/lib", "/lib", "/usr/lib64"]
        var seen = Set<String>()
        var files: [(String, Int)] = []
        for folder in folders {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names where name.hasPrefix("lib") && name.contains(".so.") && !seen.contains(name) {
                var status = stat()
                guard lstat(folder + "/" + name, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
                seen.insert(name)
                files.append((name, Int(status.st_size)))
            }
        }
        return files
    }
}
