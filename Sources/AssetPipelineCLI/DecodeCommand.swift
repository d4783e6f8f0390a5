import ArgumentParser
import AssetCodecs
import AssetLoading
import AssetPipeline
import Foundation

/// `assetpipe decode INPUT`: decodes an image (PNG, JPEG, WebP, AVIF, HEIC, GIF, TIFF, SVG, JPEG XL)
/// to RGBA and reports or writes it.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image (PNG, JPEG, WebP, AVIF, HEIC, GIF, TIFF, SVG, JPEG XL; a file or an http(s) URL) to 8-bit RGBA.",
        discussion: """
            The format is sniffed from the bytes, never the name. A GIF or animated WebP gives its first frame, \
            a TIFF its first page and a HEIF its primary image (--page picks another), an SVG is drawn at its own \
            size or at --max-dimension. --json reports the format, sizes, bit depth, frames or pages, alpha, the \
            orientation the pixels still need, and the colour profile (ICC, CICP). --output writes by extension: \
            .pam (netpbm P7, TUPLTYPE RGB_ALPHA, MAXVAL 255), .ppm (P6, alpha dropped) or .rgba (raw rows). \
            Rows are decoded and written a band at a time, so the image is never in memory whole \
            (except an interlaced PNG, or an image --max-dimension resizes); the file appears only once complete. \
            URLs load through the cache (--cache-dir) as ImageUtil does.
            Exits 1 when the input cannot be read or decoded, 2 on bad usage.
            """)

    @Argument(help: "A file path, or an http, https or s3://bucket/key URL.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the pixels to this .pam, .ppm or .rgba file.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp(
        "Refuse images that declare more pixels than this (default 100000000).", valueName: "n"))
    var maxPixels: Int = ImageUtil.Options.defaultPixelBudget

    @Option(name: .customLong("max-dimension"), help: ArgumentHelp(
        "Scale the output down so that neither side exceeds this.", valueName: "n"))
    var maxDimension: Int?

    @Option(name: .customLong("page"), help: ArgumentHelp(
        "The image of a multi-image file: a TIFF's directory or a HEIF's top-level image, from 0 (default: the first, or the primary).",
        valueName: "n"))
    var page: Int?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var outputOptions: OutputOptions

    /// What a decode reports.
    struct Summary: Sendable {
        var header: ImageHeader
        var width: Int
        var height: Int
        var warnings: [String]
        /// Bytes of the embedded ICC profile, 0 when none.
        var iccBytes: Int = 0
    }

    func validate() throws {
        if let output, PixelFileFormat(path: output) == nil {
            throw ValidationError("--output must end in .pam, .ppm or .rgba (got '\(output)')")
        }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        if let maxDimension, maxDimension <= 0 { throw ValidationError("--max-dimension must be positive") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more") }
    }

    func run() async throws {
        let options = ImageUtil.Options(maxDimension: maxDimension, pixelBudget: maxPixels, page: page)
        let summary: Summary
        do {
            summary = try await decode(options: options)
        } catch {
            let failure = CLIFailure(error)
            if outputOptions.json { CLIOutput.printJSON(["error": failure.json]) }
            CLIOutput.error("\(input): \(failure.code): \(failure.message)")
            throw ExitCode.failure
        }
        if outputOptions.json {
            let header = summary.header
            var profile: [String: Any] = ["icc": summary.iccBytes > 0]
            if summary.iccBytes > 0 { profile["iccBytes"] = summary.iccBytes }
            if let cicp = header.cicp {
                profile["cicp"] = cicp.description
                profile["hdr"] = cicp.isHDR
            }
            var object: [String: Any] = [
                "format": header.format.rawValue, "width": summary.width, "height": summary.height,
                "sourceWidth": header.width, "sourceHeight": header.height,
                "bitDepth": header.bitDepth, "channels": header.channels, "colorSpace": header.colorSpace.rawValue,
                "frames": header.frameCount, "hasAlpha": header.hasAlpha, "orientation": header.orientation ?? 1,
                "colorProfile": profile, "warnings": summary.warnings,
            ]
            if let output { object["output"] = output }
            CLIOutput.printJSON(object)
        } else {
            let size = "\(summary.width)x\(summary.height)"
            print("\(summary.header.format.rawValue) \(size)\(output.map { " -> \($0)" } ?? "")")
            for warning in summary.warnings { print("warning: \(warning)") }
        }
    }

    /// A file on this thread; a URL through the manager's loader and cache (its bytes dropped from
    /// the cache when they do not decode), decoded on the manager's threads.
    private func decode(options: ImageUtil.Options) async throws -> Summary {
        let configuration = options.decoderConfiguration(maxInputBytes: 256 << 20)
        let output = output
        let json = outputOptions.json
        guard let url = RemoteInput(input).url else {
            return try Self.decode(try LocalInput.read(input, limit: 256 << 20), configuration: configuration, to: output, profile: json)
        }
        return try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            try await ImageUtil(manager: manager).withSourceBytes(for: url, options: options) { data in
                try Self.decode(data, configuration: configuration, to: output, profile: json)
            }
        }
    }

    /// Decodes `data` band by band: into the `output` file when there is one, else into a scratch
    /// band (so that the whole image is still decoded and checked).
    /// With `profile`, the embedded ICC profile is read too (for `--json`): another pass over the
    /// container, which a plain decode does not pay.
    static func decode(_ data: Data, configuration: ImageDecoder.Configuration, to output: String?, profile: Bool) throws -> Summary {
        let decoder = ImageDecoder(configuration: configuration)
        let iccBytes = profile ? try decoder.metadata(of: data).iccProfile?.count ?? 0 : 0
        guard let output, let format = PixelFileFormat(path: output) else {
            let reader = try decoder.rowReader(for: data)
            let band = UnsafeMutableRawBufferPointer.allocate(
                byteCount: reader.bandRows(forBytes: PixelFileFormat.defaultBandBytes) * reader.bytesPerRow, alignment: 64)
            defer { band.deallocate() }
            while try reader.readRows(into: band) > 0 {}
            return Summary(header: reader.header, width: reader.width, height: reader.height, warnings: reader.warnings, iccBytes: iccBytes)
        }
        let reader = try decoder.rowReader(for: data, layout: format.layout)
        let file = try OutputFile(path: output)
        try format.write(reader) { try file.write($0) }
        try file.commit()
        return Summary(header: reader.header, width: reader.width, height: reader.height, warnings: reader.warnings, iccBytes: iccBytes)
    }
}
