import ArgumentParser
import AssetLoading
import AssetServer
import AssetStorage
import AssetWorkers
import Foundation
import Logging

/// `assetpipe serve`'s settings: each from its flag, else its `ASSETPIPE_*` variable, else the
/// default; checked, so that a bad value exits 2 before anything starts.
struct ServeSettings {
    var server: AssetServer.Configuration
    var cacheDirectory: URL
    var memoryBudget: Int
    var maxDiskBytes: Int64?
    var logLevel: Logger.Level
    /// The render worker pool's program, size and limits (started by `run`, which owns the pool).
    var renderWorkers: WorkerPool.Configuration

    init(_ command: ServeCommand, environment: [String: String]) throws {
        let env = EnvironmentReader(environment)
        var server = AssetServer.Configuration()
        server.host = command.host ?? env.string("ASSETPIPE_HOST") ?? server.host
        server.port = try command.port ?? env.int("ASSETPIPE_PORT") ?? server.port
        guard (0...65_535).contains(server.port) else { throw ValidationError("--port must be between 0 and 65535") }
        server.origin = command.origin ?? env.string("ASSETPIPE_ORIGIN")
        if let origin = server.origin {
            let lowered = origin.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), URLComponents(string: origin)?.host?.isEmpty == false,
                (URLComponents(string: origin)?.path ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/")).isEmpty
            else { throw ValidationError("--origin must be http(s)://host[:port] without a path (got '\(origin)')") }
        }
        let privateFromEnvironment = try env.bool("ASSETPIPE_ALLOW_PRIVATE") ?? false
        server.allowPrivate = command.allowPrivate || privateFromEnvironment
        let patterns = command.allowHosts.isEmpty
            ? (env.string("ASSETPIPE_ALLOW_HOSTS")?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } ?? [])
            : command.allowHosts
        server.allowedHosts = try patterns.filter { !$0.isEmpty }.map { pattern in
            guard let parsed = HostPattern(pattern) else { throw ValidationError("--allow-host '\(pattern)' is not a host name or *.domain") }
            return parsed
        }
        for bucket in command.allowS3Buckets where !S3Location.isBucketName(bucket) {
            throw ValidationError("--allow-s3-bucket '\(bucket)' is not an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')")
        }
        server.allowedS3Buckets = Set(command.allowS3Buckets)
        server.s3 = try command.s3.configuration(environment: environment)
        if !command.allowS3Buckets.isEmpty, server.s3 == nil {
            throw ValidationError("--allow-s3-bucket needs an S3 store: --s3-endpoint or AWS_ENDPOINT_URL, and AWS credentials")
        }
        if let file = command.adminTokenFile ?? env.string("ASSETPIPE_ADMIN_TOKEN_FILE") {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("cannot read the admin token file \(file)")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.count >= 16 else { throw ValidationError("the admin token in \(file) must have at least 16 characters") }
            server.adminToken = token
        }
        server.maxConnections = try Self.positive(command.maxConnections ?? env.int("ASSETPIPE_MAX_CONNECTIONS"), "--max-connections") ?? server.maxConnections
        server.requestTimeout = try Self.seconds(command.requestTimeout ?? env.double("ASSETPIPE_REQUEST_TIMEOUT"), "--request-timeout") ?? server.requestTimeout
        server.writeTimeout = try Self.seconds(command.writeTimeout ?? env.double("ASSETPIPE_WRITE_TIMEOUT"), "--write-timeout") ?? server.writeTimeout
        server.idleTimeout = try Self.seconds(command.idleTimeout ?? env.double("ASSETPIPE_IDLE_TIMEOUT"), "--idle-timeout") ?? server.idleTimeout
        server.drainTimeout = try Self.seconds(command.drainTimeout ?? env.double("ASSETPIPE_DRAIN_TIMEOUT"), "--drain-timeout") ?? server.drainTimeout
        server.maxBodyBytes = try Self.positive(command.maxBodyBytes ?? env.int("ASSETPIPE_MAX_BODY_BYTES"), "--max-body-bytes") ?? server.maxBodyBytes
        if let threshold = try Self.positive((command.largeAssetThreshold ?? env.int64("ASSETPIPE_LARGE_ASSET_THRESHOLD")).map(Int.init), "--large-asset-threshold") {
            server.largeAssetThreshold = Int64(threshold)
        }
        if let chunks = try command.readAheadChunks ?? env.int("ASSETPIPE_READ_AHEAD_CHUNKS") {
            guard chunks >= 0 else { throw ValidationError("--read-ahead-chunks must be 0 or more") }
            server.readAheadChunks = chunks
        }
        if let bytes = try command.unsentBytesLimit ?? env.int("ASSETPIPE_UNSENT_BYTES_LIMIT") {
            guard bytes >= 0 else { throw ValidationError("--unsent-bytes-limit must be 0 or more") }
            server.unsentBytesLimit = bytes == 0 ? nil : bytes
        }
        server.memoryAssetLimit = try Self.positive(command.memoryAssetLimit ?? env.int("ASSETPIPE_MEMORY_ASSET_LIMIT"), "--memory-asset-limit") ?? server.memoryAssetLimit
        server.maxPrefetchJobs = try Self.positive(command.maxPrefetchJobs ?? env.int("ASSETPIPE_MAX_PREFETCH_JOBS"), "--max-prefetch-jobs") ?? server.maxPrefetchJobs
        server.nodeName = command.nodeName ?? env.string("ASSETPIPE_NODE_NAME") ?? server.nodeName
        guard !server.nodeName.isEmpty, server.nodeName.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ValidationError("--node-name must be printable ASCII without spaces")
        }
        server.images = try command.images.resolve(env)
        server.images.util.derivedStore = try command.derived.configuration(s3: server.s3)
        self.renderWorkers = try command.renderWorkers.resolve(env)
        self.server = server
        self.cacheDirectory = command.cache.directory
        self.memoryBudget = try Self.positive(command.memoryBudget ?? env.int("ASSETPIPE_MEMORY_BUDGET"), "--memory-budget") ?? (256 << 20)
        self.maxDiskBytes = try Self.positive((command.maxDiskBytes ?? env.int64("ASSETPIPE_MAX_DISK_BYTES")).map(Int.init), "--max-disk-bytes").map(Int64.init)
        let level = command.logLevel ?? env.string("ASSETPIPE_LOG_LEVEL") ?? "info"
        guard let parsed = Logger.Level(rawValue: level.lowercased()) else { throw ValidationError("unknown --log-level '\(level)'") }
        self.logLevel = parsed
    }

    private static func positive(_ value: Int?, _ name: String) throws -> Int? {
        guard let value else { return nil }
        guard value > 0 else { throw ValidationError("\(name) must be positive") }
        return value
    }

    private static func seconds(_ value: Double?, _ name: String) throws -> Duration? {
        guard let value else { return nil }
        guard value > 0, value.isFinite else { throw ValidationError("\(name) must be a positive number of seconds") }
        return .nanoseconds(Int64(value * 1e9))
    }
}

/// Typed reads of `ASSETPIPE_*` variables; a malformed value is a usage error.
struct EnvironmentReader {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func string(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw ValidationError("\(name) must be an integer (got '\(text)')") }
        return value
    }

    func int64(_ name: String) throws -> Int64? {
        guard let text = string(name) else { return nil }
        guard let value = Int64(text) else { throw ValidationError("\(name) must be an integer (got '\(text)')") }
        return value
    }

    func double(_ name: String) throws -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text) else { throw ValidationError("\(name) must be a number (got '\(text)')") }
        return value
    }

    func bool(_ name: String) throws -> Bool? {
        guard let text = string(name)?.lowercased() else { return nil }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ValidationError("\(name) must be 1 or 0 (got '\(text)')")
        }
    }
}
