import ArgumentParser
import AssetImaging
import AssetServer
import Foundation

/// `assetpipe sign`: the signed URLs of a transform of a source, for a server started with
/// `--signing-key-file`.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the signed /v1/image URLs (query form and path form) of a transform of a source.",
        discussion: """
            The signature is HMAC-SHA256(key, salt + canonical transform + "\\n" + source URL), unpadded
            base64url, as `assetpipe serve --signing-key-file F --signing-salt S` checks it. Presets are
            expanded by the server before it checks, so sign what the preset stands for, or use
            --preset NAME=TRANSFORM to expand one here.

              assetpipe sign --key-file key.txt --transform 'w=256,h=256,fit=cover,format=webp' \\
                  --base http://127.0.0.1:8080 https://example.org/photo.jpg
            """)

    @Option(name: .customLong("key-file"), help: ArgumentHelp("The signing key file (as given to serve).", valueName: "file"))
    var keyFile: String

    @Option(help: ArgumentHelp("The salt (as given to serve's --signing-salt).", valueName: "text"))
    var salt: String = ""

    @Option(help: ArgumentHelp("The transform: w=256,h=256,fit=cover,format=webp (default: original).", valueName: "text"))
    var transform: String = ""

    @Option(help: ArgumentHelp("The service's address to print before each path, http://host:port.", valueName: "url"))
    var base: String = ""

    @Flag(help: "Print {\"query\": ..., \"path\": ..., \"signature\": ...} as JSON.")
    var json = false

    @Argument(help: ArgumentHelp("The source image URL (http, https or s3://bucket/key).", valueName: "url"))
    var source: String

    func run() throws {
        let parsed: ImageTransform
        do {
            parsed = try ImageTransform(parsing: transform)
        } catch let error as ImagingError {
            throw ValidationError("--transform: \(error.message)")
        }
        let lowered = source.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("s3://") else {
            throw ValidationError("the source must be an absolute http, https or s3 URL")
        }
        let signer = ImageURLSigner(key: try ImageServiceOptions.readKey(keyFile), salt: Array(salt.utf8))
        var prefix = base
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let query = prefix + signer.queryTarget(for: parsed, source: source)
        let path = prefix + signer.pathTarget(for: parsed, source: source)
        if json {
            CLIOutput.printJSON(.object([
                ("query", .string(query)), ("path", .string(path)),
                ("signature", .string(signer.signature(for: parsed, source: source))),
                ("transform", .string(parsed.canonicalText)),
            ]))
        } else {
            print(query)
            print(path)
        }
    }
}
