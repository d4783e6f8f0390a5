import Foundation

/// One input through the dotLottie (zip) reader, for the libFuzzer target `dotlottie`
/// (`scripts/fuzz`) and the regression tests that replay what it found (`Fixtures/fuzz/`).
///
/// Returns nil when the reader kept its promises, or which promise it broke; a crash is a finding
/// too. Not part of the library's API.
@_spi(Fuzzing)
public enum LottieContainerFuzzing {
    /// A dotLottie archive: reading it never passes the configured bounds (entries, animations,
    /// decompressed bytes), and what it reads has the animations its manifest promises.
    public static func dotLottie(_ bytes: UnsafeRawBufferPointer) -> String? {
        var configuration = LottieDocumentReader.Configuration()
        configuration.maxDecompressedBytes = 4 << 20
        configuration.maxArchiveEntries = 64
        configuration.maxAnimations = 8
        configuration.parser.maxDepth = 128
        guard let document = try? DotLottieReader(configuration: configuration).read(Data(bytes)) else { return nil }
        if document.animations.count > configuration.maxAnimations { return "\(document.animations.count) animations, over the limit" }
        let inflated = document.animations.reduce(0) { $0 + $1.sourceByteCount }
        if inflated > configuration.maxDecompressedBytes { return "\(inflated) bytes inflated, over the limit" }
        if document.animations.isEmpty { return "an archive read with no animation" }
        return nil
    }
}
