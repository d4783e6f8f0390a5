import AssetLoading
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore

extension Representation {
    /// The reply to `incoming`: a `304` or `412` by its conditional fields, a `206` (or `416`) for a
    /// single range it may have, else the whole representation with its own status.
    func reply(to incoming: IncomingRequest, context: ServerContext) -> Reply {
        var fields = self.fields
        if let age { fields[.age] = String(age) }
        fields[.xCache] = cacheStatus
        guard isRangeable else { return whole(fields: fields, context: context, incoming: incoming) }
        fields[.acceptRanges] = "bytes"
        let conditions = incoming.conditions
        if !conditions.isEmpty {
            switch conditions.evaluate(eTag: eTag, lastModified: lastModified, now: context.now) {
            case .proceed:
                break
            case .notModified:
                return .empty(.notModified, fields: Self.notModifiedFields(fields))
            case .preconditionFailed:
                return .empty(.preconditionFailed, fields: Self.notModifiedFields(fields))
            }
        }
        if let range = incoming.range, conditions.rangeApplies(eTag: eTag, lastModified: lastModified) {
            guard let resolved = range.resolve(length: length) else { return .error(.rangeNotSatisfiable(totalLength: length)) }
            fields[.contentRange] = ClientRange.contentRange(resolved, length: length)
            return body(resolved, status: .partialContent, fields: fields, context: context, incoming: incoming)
        }
        return whole(fields: fields, context: context, incoming: incoming)
    }

    private func whole(fields: HTTPFields, context: ServerContext, incoming: IncomingRequest) -> Reply {
        body(0..<length, status: HTTPResponse.Status(code: status), fields: fields, context: context, incoming: incoming)
    }

    private func body(
        _ range: Range<Int64>, status: HTTPResponse.Status, fields: HTTPFields, context: ServerContext, incoming: IncomingRequest
    ) -> Reply {
        var reply: Reply
        switch source {
        case .memory(let buffer):
            let slice = range == 0..<length
                ? buffer : buffer.getSlice(at: buffer.readerIndex + Int(range.lowerBound), length: range.count) ?? ByteBuffer()
            reply = Reply(status: status, fields: fields, buffer: slice)
        case .file(let file):
            let pump = incoming.pump
            reply = Reply(status: status, fields: fields, length: Int64(range.count), pump: pump) { writer in
                let base = file.dataOffset
                try await pump.sendFile(
                    (base + range.lowerBound)..<(base + range.upperBound), descriptor: { try file.duplicateDescriptor() }, to: &writer)
            }
        }
        reply.cacheStatus = cacheStatus
        return reply
    }

    /// The fields a `304` carries (RFC 9110 15.4.5): those a `200` would have that describe the
    /// representation's metadata, not its body.
    static func notModifiedFields(_ fields: HTTPFields) -> HTTPFields {
        let kept: Set<HTTPField.Name> = [.eTag, .cacheControl, .expires, .date, .vary, .contentLocation, .lastModified, .age, .xCache]
        var result = HTTPFields()
        for field in fields where kept.contains(field.name) { result.append(field) }
        return result
    }
}
