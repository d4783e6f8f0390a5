import ArgumentParser
import AssetTestSupport
import Foundation
import Glibc

/// `assetpipe-demo-origin`: serves a directory on loopback for the demo and the benchmarks.
///
/// Each file is served with an `ETag`, a `Last-Modified`, a `Content-Type` by extension, a
/// `Cache-Control: max-age` and byte ranges, by the same origin the tests use. It prints its base
/// URL on standard output once it listens, then serves until SIGINT or SIGTERM.
@main
struct DemoOrigin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpipe-demo-origin",
        abstract: "Serve a directory over HTTP on 127.0.0.1, with validators, freshness and ranges.")

    @Argument(help: "The directory to serve.")
    var root: String

    @Option(help: ArgumentHelp("The port; 0 lets the system choose.", valueName: "n"))
    var port = 0

    @Option(name: .customLong("max-age"), help: ArgumentHelp("The max-age sent with every file, in seconds.", valueName: "seconds"))
    var maxAge = 600

    func run() async throws {
        let origin = try await TestOrigin.start(configuration: .init(port: port))
        let rootURL = URL(fileURLWithPath: root, isDirectory: true).standardizedFileURL
        guard let walker = FileManager.default.enumerator(at: rootURL, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw ValidationError("cannot read the directory '\(root)'")
        }
        var served = 0
        for case let file as URL in walker {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let relative = String(file.standardizedFileURL.path.dropFirst(rootURL.path.count))
            let bytes = Array(try Data(contentsOf: file))
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? Date()
            origin.setRoute(relative.hasPrefix("/") ? relative : "/" + relative, .resource(TestResource(
                content: .bytes(bytes),
                eTag: "\"\(String(bytes.count, radix: 16))-\(String(Self.fnv1a(bytes), radix: 16))\"",
                lastModified: modified,
                headers: [("Cache-Control", "max-age=\(maxAge)"), ("Content-Type", Self.contentType(of: file.pathExtension))])))
            served += 1
        }
        FileHandle.standardOutput.write(Data((origin.baseURL + "\n").utf8))
        FileHandle.standardError.write(Data("assetpipe-demo-origin: serving \(served) files of \(rootURL.path) at \(origin.baseURL)\n".utf8))

        let stopRequested = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopRequested.signal() }
            source.resume()
            sources.append(source)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                stopRequested.wait()
                continuation.resume()
            }.start()
        }
        withExtendedLifetime(sources) {}
        await origin.stop()
    }

    /// FNV-1a, 64 bits: a validator that stays the same across restarts (Swift's hashes are seeded per process).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    static func contentType(of pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "json": "application/json"
        case "lottie": "application/zip"
        case "tgs": "application/gzip"
        case "mp4", "m4v", "m4b": "video/mp4"
        case "webm": "video/webm"
        case "mkv": "video/x-matroska"
        case "txt", "md", "tsv": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
