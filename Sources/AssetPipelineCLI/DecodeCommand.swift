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

    func validate() throws {
        if let output, PixelFileFormat(path: output) == nil {
            throw ValidationError("--output must end in .pam, .ppm or .rgba (got '\(output)')")
        }
        guard maxPixels > 0 else { throw ValidationError("--max-pixels must be positive") }
        if let maxDimension, maxDimension <= 0 { throw ValidationError("--max-dimension must be positive") }
    }

    func run() async throws {
        let options = ImageUtil.Options(maxDimension: maxDimension, pixelBudget: maxPixels)
        let decoded: DecodedImage
        do {
            decoded = try await decode(options: options)
            if let output { try PixelFileFormat(path: output)!.write(decoded.bitmap, to: output) }
        } catch {
            let failure = CLIFailure(error)
            if outputOptions.json { CLIOutput.printJSON(["error": failure.json]) }
            CLIOutput.error("\(input): \(failure.code): \(failure.message)")
            throw ExitCode.failure
        }
        let bitmap = decoded.bitmap
        if outputOptions.json {
            var object: [String: Any] = [
                "format": decoded.header.format.rawValue, "width": bitmap.width, "height": bitmap.height,
                "sourceWidth": decoded.header.width, "sourceHeight": decoded.header.height,
                "warnings": decoded.warnings,
            ]
            if let output { object["output"] = output }
            CLIOutput.printJSON(object)
        } else {
            let size = "\(bitmap.width)x\(bitmap.height)"
            print("\(decoded.header.format.rawValue) \(size)\(output.map { " -> \($0)" } ?? "")")
            for warning in decoded.warnings { print("warning: \(warning)") }
        }
    }

    /// A URL through the manager and ImageUtil, a file directly on this thread.
    private func decode(options: ImageUtil.Options) async throws -> DecodedImage {
        guard let url = RemoteInput(input).url else {
            return try ImageUtil.decode(try LocalInput.read(input, limit: 256 << 20), options: options)
        }
        return try await cache.withManager(loader: try tier.loaderConfiguration()) { manager in
            try await ImageUtil(manager: manager).decodedImage(for: url, options: options)
        }
    }
}
