import ArgumentParser
import AssetCodecs
import AssetLoading
import AssetPipeline
import Foundation

/// `assetpipe decode INPUT`: decodes a PNG or JPEG to RGBA and reports or writes it.
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a PNG or JPEG (a file or an http(s) URL) to 8-bit RGBA.",
        discussion: """
            The format is sniffed from the bytes, never the name. --output writes by extension: \
            .pam (netpbm P7, TUPLTYPE RGB_ALPHA, MAXVAL 255), .ppm (P6, alpha dropped) or .rgba (raw rows). \
            Rows are decoded and written a band at a time, so the image is never in memory whole \
            (except an interlaced PNG, or an image --max-dimension resizes); the file appears only once complete. \
            URLs load through the cache (--cache-dir) as ImageUtil does.
            Exits 1 when the input cannot be read or decoded, 2 on bad usage.
            """)

    @Argument(help: "A file path, or an http or https URL.")
    var input: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the pixels to this .pam, .ppm or .rgba file.", valueName: "file"))
    var output: String?

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp(
        "Refuse images that declare more pixels than this (default 100000000).", valueName: "n"))
    var maxPixels: Int = ImageUtil.Options.defaultPixelBudget

    @Option(name: .customLong("max-dimension"), help: ArgumentHelp(
        "Scale the output down so that neither side exceeds this.", valueName: "n"))
    var maxDimension: Int?

    @OptionGroup var cache: CacheOptions
    @OptionGroup var tier: TierOptions
    @OptionGroup var outputOptions: OutputOptions

    /// What a decode reports.
    struct Summary: Sendable {
        var header: ImageHeader
        var width: Int
        var height: Int
        var warnings: [String]
    }

    func validate() throws {
        if let output, PixelFileFormat(path: output) == nil {
            throw ValidationError("--output must end in .pam, .ppm or .rgba (got '\(output)')")
        }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        if let maxDimension, maxDimension <= 0 { throw ValidationError("--max-dimension must be positive") }
    }

    func run() async throws {
        let options = ImageUtil.Options(maxDimension: maxDimension, pixelBudget: maxPixels)
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
            var object: [String: Any] = [
                "format": summary.header.format.rawValue, "width": summary.width, "height": summary.height,
                "sourceWidth": summary.header.width, "sourceHeight": summary.header.height,
                "warnings": summary.warnings,
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
        guard let url = RemoteInput(input).url else {
            return try Self.decode(try LocalInput.read(input, limit: 256 << 20), configuration: configuration, to: output)
        }
        return try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            try await ImageUtil(manager: manager).withSourceBytes(for: url, options: options) { data in
                try Self.decode(data, configuration: configuration, to: output)
            }
        }
    }

    /// Decodes `data` band by band: into the `output` file when there is one, else into a scratch
    /// band (so that the whole image is still decoded and checked).
    static func decode(_ data: Data, configuration: ImageDecoder.Configuration, to output: String?) throws -> Summary {
        let decoder = ImageDecoder(configuration: configuration)
        guard let output, let format = PixelFileFormat(path: output) else {
            let reader = try decoder.rowReader(for: data)
            let band = UnsafeMutableRawBufferPointer.allocate(
                byteCount: reader.bandRows(forBytes: PixelFileFormat.defaultBandBytes) * reader.bytesPerRow, alignment: 64)
            defer { band.deallocate() }
            while try reader.readRows(into: band) > 0 {}
            return Summary(header: reader.header, width: reader.width, height: reader.height, warnings: reader.warnings)
        }
        let reader = try decoder.rowReader(for: data, layout: format.layout)
        let file = try OutputFile(path: output)
        try format.write(reader) { try file.write($0) }
        try file.commit()
        return Summary(header: reader.header, width: reader.width, height: reader.height, warnings: reader.warnings)
    }
}
