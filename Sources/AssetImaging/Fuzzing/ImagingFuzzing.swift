import AssetCodecs

/// The transform's fuzzing entry, shared by the codecs fuzz target (`scripts/fuzz codecs`) and the
/// regression tests that replay what it found.
@_spi(Fuzzing)
public enum ImagingFuzzing {
    /// One transform of `bytes`, its size, fit, gravity and format taken from their last four
    /// bytes (AVIF, slow to encode, only for small outputs), under small limits; the transform's
    /// canonical text must read back the same transform, a failure must be a `CodecError` or an
    /// ``ImagingError``, and a success a non-empty output. Also parses the first bytes as
    /// transform text. Traps (`fatalError`) when a promise breaks.
    public static func transform(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4 else { return }
        let tail = Array(bytes.suffix(4))
        let fits = ImageTransform.Fit.allCases, gravities = ImageTransform.Gravity.allCases
        let formats: [OutputFormat] = [.jpeg, .png, .webp, .avif]
        var transform = ImageTransform(
            width: Int(tail[0] % 96) + 1, height: tail[1] % 3 == 0 ? nil : Int(tail[1] % 80) + 1,
            fit: fits[Int(tail[2]) % fits.count], enlarge: tail[2] & 0x80 != 0,
            gravity: gravities[Int(tail[3]) % gravities.count], format: .format(formats[Int(tail[3] >> 4) % 4]))
        if case .format(.avif) = transform.format, (transform.width ?? 0) > 24 { transform.format = .format(.webp) }
        guard let reparsed = try? ImageTransform(parsing: transform.canonicalText), reparsed == transform else {
            fatalError("the canonical text \(transform.canonicalText) does not read back the same transform")
        }
        let limits = ImageProcessor.Configuration(
            maxSourcePixels: 4_000_000, maxInputBytes: 1 << 20, maxOutputPixels: 200_000, maxOutputBytes: 4 << 20,
            avifSpeed: 10, avifThreads: 1)
        do {
            let output = try ImageProcessor(configuration: limits).process(Array(bytes), transform: transform)
            if output.bytes.isEmpty || output.width < 1 || output.height < 1 { fatalError("an empty output") }
        } catch is CodecError {
        } catch is ImagingError {
        } catch {
            fatalError("an error that is not typed: \(error)")
        }
        // Arbitrary text as a transform: a typed error or a transform, never a crash.
        if let text = String(validating: bytes.prefix(64), as: UTF8.self) {
            _ = try? ImageTransform(parsing: text)
        }
    }
}
