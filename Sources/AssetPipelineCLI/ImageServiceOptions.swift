import ArgumentParser
import AssetImaging
import AssetPipeline
import AssetServer
import Foundation

/// The image service's options of `assetpipe serve`: signing, presets and limits.
struct ImageServiceOptions: ParsableArguments {
    @Option(name: .customLong("signing-key-file"), help: ArgumentHelp(
        "Require every /v1/image variant URL to be signed with the key in this file (HMAC-SHA256; see `assetpipe sign`). Env ASSETPIPE_SIGNING_KEY_FILE.",
        valueName: "file"))
    var signingKeyFile: String?

    @Option(name: .customLong("signing-salt"), help: ArgumentHelp(
        "A salt prefixed to every signed text. Env ASSETPIPE_SIGNING_SALT.", valueName: "text"))
    var signingSalt: String?

    @Option(name: .customLong("preset"), help: ArgumentHelp(
        "A named transform, NAME=w:256,h:256,fit:cover (repeatable). Env ASSETPIPE_PRESETS (separated by ';').", valueName: "name=transform"))
    var presets: [String] = []

    @Flag(name: .customLong("presets-only"), help: "Make presets only: other transform keys get 403 (format may still be given). Env ASSETPIPE_PRESETS_ONLY.")
    var presetsOnly = false

    @Option(name: .customLong("max-transforms"), help: ArgumentHelp(
        "Variant transforms run at once (default: the number of cores). Env ASSETPIPE_MAX_TRANSFORMS.", valueName: "n"))
    var maxTransforms: Int?

    @Option(name: .customLong("transform-queue"), help: ArgumentHelp(
        "Transforms that may wait for a turn; beyond, 503 with Retry-After (default 64). Env ASSETPIPE_TRANSFORM_QUEUE.", valueName: "n"))
    var transformQueue: Int?

    @Option(name: .customLong("transform-timeout"), help: ArgumentHelp(
        "Seconds a request waits for its variant before a 503 (default 30). Env ASSETPIPE_TRANSFORM_TIMEOUT.", valueName: "seconds"))
    var transformTimeout: Double?

    @Option(name: .customLong("max-source-bytes"), help: ArgumentHelp(
        "The largest image source fetched, in bytes (default 67108864). Env ASSETPIPE_MAX_SOURCE_BYTES.", valueName: "bytes"))
    var maxSourceBytes: Int?

    @Option(name: .customLong("max-source-pixels"), help: ArgumentHelp(
        "The most pixels a source image may declare (default 100000000). Env ASSETPIPE_MAX_SOURCE_PIXELS.", valueName: "pixels"))
    var maxSourcePixels: Int?

    @Option(name: .customLong("max-output-pixels"), help: ArgumentHelp(
        "The most pixels of a variant (default 50000000). Env ASSETPIPE_MAX_OUTPUT_PIXELS.", valueName: "pixels"))
    var maxOutputPixels: Int?

    /// The image service's settings: each from its flag, else its variable, else the default.
    func resolve(_ env: EnvironmentReader) throws -> AssetServer.ImageService {
        var service = AssetServer.ImageService()
        if let file = signingKeyFile ?? env.string("ASSETPIPE_SIGNING_KEY_FILE") {
            let key = try Self.readKey(file)
            let salt = signingSalt ?? env.string("ASSETPIPE_SIGNING_SALT") ?? ""
            service.signer = ImageURLSigner(key: key, salt: Array(salt.utf8))
        } else if signingSalt != nil {
            throw ValidationError("--signing-salt needs --signing-key-file")
        }
        let definitions = presets.isEmpty
            ? (env.string("ASSETPIPE_PRESETS")?.split(separator: ";").map(String.init) ?? []) : presets
        for definition in definitions {
            do {
                let preset = try AssetServer.ImageService.preset(parsing: definition)
                guard service.presets[preset.name] == nil else { throw ValidationError("the preset '\(preset.name)' is defined twice") }
                service.presets[preset.name] = preset.transform
            } catch let error as ImagingError {
                throw ValidationError("--preset '\(definition)': \(error.message)")
            }
        }
        service.presetsOnly = try presetsOnly || (env.bool("ASSETPIPE_PRESETS_ONLY") ?? false)
        if service.presetsOnly && service.presets.isEmpty { throw ValidationError("--presets-only needs at least one --preset") }
        if let value = try Self.positive(maxTransforms ?? env.int("ASSETPIPE_MAX_TRANSFORMS"), "--max-transforms") {
            service.util.maxConcurrentTransforms = value
        }
        if let value = try transformQueue ?? env.int("ASSETPIPE_TRANSFORM_QUEUE") {
            guard value >= 0 else { throw ValidationError("--transform-queue must be 0 or more") }
            service.util.maxQueuedTransforms = value
        }
        if let seconds = try transformTimeout ?? env.double("ASSETPIPE_TRANSFORM_TIMEOUT") {
            guard seconds > 0, seconds.isFinite else { throw ValidationError("--transform-timeout must be a positive number of seconds") }
            service.transformTimeout = .nanoseconds(Int64(seconds * 1e9))
        }
        service.util.maxInputBytes = try Self.positive(maxSourceBytes ?? env.int("ASSETPIPE_MAX_SOURCE_BYTES"), "--max-source-bytes") ?? (64 << 20)
        if let value = try Self.positive(maxSourcePixels ?? env.int("ASSETPIPE_MAX_SOURCE_PIXELS"), "--max-source-pixels") {
            service.maxSourcePixels = value
        }
        if let value = try Self.positive(maxOutputPixels ?? env.int("ASSETPIPE_MAX_OUTPUT_PIXELS"), "--max-output-pixels") {
            service.util.processor.maxOutputPixels = value
        }
        return service
    }

    /// The key of a key file: at least 16 bytes once trailing whitespace is removed.
    static func readKey(_ file: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read the signing key file \(file)") }
        let key = ImageURLSigner.keyBytes(fromFile: Array(data))
        guard key.count >= 16 else { throw ValidationError("the signing key in \(file) must have at least 16 bytes") }
        return key
    }

    private static func positive(_ value: Int?, _ name: String) throws -> Int? {
        guard let value else { return nil }
        guard value > 0 else { throw ValidationError("\(name) must be positive") }
        return value
    }
}
