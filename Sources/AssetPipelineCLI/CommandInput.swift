import AssetCodecs
import AssetLoading
import AssetLottie
import AssetLottieRender
import AssetPipeline
import AssetStorage
import AssetVideoFrames
import Foundation

/// An INPUT argument that names a remote resource: an `http`, `https` or `s3://bucket/key` URL.
struct RemoteInput {
    let url: URL?

    init(_ input: String) {
        let lowered = input.lowercased()
        url = lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("s3://") ? URL(string: input) : nil
    }
}

extension CacheOptions {
    /// Runs `body` with a manager over the cache directory (no limits of its own, so that opening
    /// it evicts nothing), shut down afterwards whatever `body` does.
    func withManager<T: Sendable>(
        loader: AssetLoader.Configuration = AssetLoader.Configuration(), _ body: (AssetsManager) async throws -> T
    ) async throws -> T {
        let manager = try await AssetsManager.open(configuration: .init(
            disk: .init(directory: directory, maxBytes: .max, maxCount: .max), loader: loader))
        do {
            let result = try await body(manager)
            try? await manager.shutdown()
            return result
        } catch {
            try? await manager.shutdown()
            throw error
        }
    }
}

/// An INPUT argument that names a local file (a path, or a `file://` URL).
enum LocalInput {
    /// The file's bytes; refuses files over `limit` bytes before reading them.
    static func read(_ input: String, limit: Int) throws -> Data {
        let path = input.hasPrefix("file://") ? (URL(string: input)?.path ?? input) : input
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIFailure(code: "notFound", message: "cannot open \(path)")
        }
        defer { try? handle.close() }
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        guard data.count <= limit else {
            throw CLIFailure(code: "tooLarge", message: "\(path) is larger than \(limit) bytes")
        }
        return data
    }

    /// What the file's first bytes show it holds.
    static func kind(of input: String) throws -> FrameSourceKind {
        FrameSourceKind(prefix: try read(input, prefix: 12))
    }

    /// The file's first bytes, as many as a sniff of its kind reads.
    static func head(of input: String) throws -> Data {
        try read(input, prefix: 512)
    }

    /// The file's first `count` bytes (fewer when it is shorter).
    private static func read(_ input: String, prefix count: Int) throws -> Data {
        let path = input.hasPrefix("file://") ? (URL(string: input)?.path ?? input) : input
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CLIFailure(code: "notFound", message: "cannot open \(path)")
        }
        defer { try? handle.close() }
        return try handle.read(upToCount: count) ?? Data()
    }

    /// The frame at `time` of the video file, read with positional reads (only what the decoder
    /// asks for).
    static func videoFrame(_ input: String, at time: VideoFrameTime) throws -> VideoFrame {
        try withVideoSource(input) { try VideoFrameDecoder().decode($0, at: time) }
    }

    /// `body` with the video file as a decoder's source: positional reads of the open file.
    static func withVideoSource<T>(_ input: String, _ body: (VideoFrameSource) throws -> T) throws -> T {
        let path = input.hasPrefix("file://") ? (URL(string: input)?.path ?? input) : input
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIFailure(code: "notFound", message: "cannot open \(path)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw CLIFailure(code: "io", message: "cannot read \(path)") }
        let source = VideoFrameSource(size: Int64(status.st_size)) { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n < 0 ? nil : Array(bytes.prefix(n))
        }
        return try body(source)
    }
}

/// A failure as the commands report it: `{"code": ..., "message": ...}` plus what the error adds.
struct CLIFailure: Error {
    var code: String
    var message: String
    /// A Lottie error's problems (JSON path and message each), its path and byte offset.
    var problems: [[String: String]]?
    var path: String?
    var offset: Int?

    init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The code and message of any error the commands meet.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self = failure
        case let error as CodecError:
            self.init(code: error.shortDescription, message: error.message)
        case let error as LottieError:
            self.init(code: error.shortDescription, message: error.message)
            problems = error.problems.map { ["path": $0.path, "message": $0.message] }
            path = error.path
            offset = error.offset
        case let error as LottieRenderError:
            self.init(code: error.shortDescription, message: error.message)
        case let error as VideoFrameError:
            self.init(code: error.code.rawValue, message: error.message)
        case let error as VideoError:
            self.init(code: "video.\(error.code)", message: error.message)
        case let error as LoaderError:
            self.init(code: error.shortDescription, message: error.message)
        case let error as StorageError:
            self.init(code: "storage", message: error.description)
        default:
            self.init(code: "io", message: "\(error)")
        }
    }

    /// The `error` object of the JSON output.
    var json: [String: Any] {
        var object: [String: Any] = ["code": code, "message": message]
        if let problems { object["problems"] = problems }
        if let path { object["path"] = path }
        if let offset { object["offset"] = offset }
        return object
    }
}
