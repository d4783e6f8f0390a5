// libFuzzer entry point for AssetLottie: the JSON parser, model, validator and writer, and (for
// inputs that start like a zip or gzip file) the dotLottie and .tgs readers.
//
// Not a SwiftPM target (an executable without `main` would break `swift build`): scripts/fuzz-lottie
// compiles it with swiftc together with the AssetLottie sources and a static ZIPFoundation, with
// `-sanitize=fuzzer,address`. Besides crashes, it checks four properties and traps when they fail:
// what the parser accepts, the writer writes back to an equivalent value; a parsed model encodes
// to JSON equivalent to its input; strict validation (the Lottie 1.0 schema and the checks on top)
// gives the same verdict on the parsed document as on the model's JSON; and a document the schema's
// checking pass rejects gets at least one located problem from its collecting pass.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func lottieFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    if LottieContainerFormat.sniff(bytes) != .json {
        var configuration = LottieDocumentReader.Configuration()
        configuration.maxDecompressedBytes = 8 << 20
        _ = try? LottieDocumentReader(configuration: configuration).read(Data(bytes))
        return 0
    }
    var configuration = LottieParser.Configuration()
    configuration.maxDepth = 256
    let parser = LottieParser(configuration: configuration)
    guard let value = try? parser.parseJSON(bytes) else { return 0 }
    let written = JSONWriter().write(value)
    guard let reread = try? parser.parseJSON(written), reread.isEquivalent(to: value) else {
        fatalError("writer output does not read back to the same value")
    }
    guard let animation = try? LottieAnimation(json: value) else { return 0 }
    // Strict mode, as LottieParser runs it (on the parsed document), and as the public API runs it.
    let onDocument = LottieValidator().validate(animation, document: value)
    let onModel = LottieValidator().validate(animation)
    guard onDocument.isEmpty == onModel.isEmpty else {
        fatalError("strict validation disagrees between the document and the model's JSON")
    }
    if onDocument.contains(where: { $0.path == "$" && $0.message.hasPrefix("does not conform") }) {
        fatalError("the schema's collecting pass found nothing where its checking pass failed")
    }
    var strictConfiguration = configuration
    strictConfiguration.strict = true
    _ = try? LottieParser(configuration: strictConfiguration).parse(bytes)
    _ = animation.usedAssetIDs
    _ = animation.durationSeconds
    guard let back = try? parser.parseJSON(animation.encoded()), back.isEquivalent(to: value) else {
        fatalError("model round trip changed the JSON")
    }
    return 0
}
