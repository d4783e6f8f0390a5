import AssetStorage
import HTTPTypes
import NIOCore

/// `/healthz` (the process answers), `/readyz` (listening, not draining, the cache open) and
/// `/metrics` (Prometheus text).
struct HealthEndpoints: Sendable {
    let context: ServerContext

    func alive() -> Reply {
        .json(.object([("status", .string("ok"))]))
    }

    func ready() -> Reply {
        let cacheOpen = context.manager.diskCache.isOpen
        guard context.state.isReady, cacheOpen else {
            return .json(.object([("status", .string(cacheOpen ? "draining" : "cache closed"))]), status: .serviceUnavailable)
        }
        return .json(.object([("status", .string("ready"))]))
    }

    func metrics() -> Reply {
        var fields = HTTPFields()
        fields[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Reply(status: .ok, fields: fields, buffer: ByteBuffer(bytes: context.metrics.exposition()))
    }
}
