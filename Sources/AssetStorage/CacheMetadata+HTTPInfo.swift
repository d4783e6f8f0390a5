import Foundation

extension CacheMetadata.HTTPInfo {
    /// The exchange as a JSON object, as the disk cache's metadata and the chunk store's records
    /// keep it.
    var json: CompactJSON {
        func date(_ d: Date) -> CompactJSON { .string(ISO8601.string(from: d)) }
        return .object([
            ("status", .number(Double(status))),
            ("headers", .array(headers.map { .array([.string($0.name), .string($0.value)]) })),
            ("requestTime", date(requestTime)),
            ("responseTime", date(responseTime)),
            ("varyRequestHeaders", .array(varyRequestHeaders.map { .array([.string($0.name), $0.value.map(CompactJSON.string) ?? .null]) })),
        ])
    }

    /// Reads an object written by ``json``; `nil` when it is not whole and valid.
    init?(json object: CompactJSON) {
        func date(_ name: String) -> Date? { object[name]?.stringValue.flatMap(ISO8601.date(from:)) }
        guard let status = object["status"]?.int64Value,
              case let .array(headerList)? = object["headers"],
              let requestTime = date("requestTime"),
              let responseTime = date("responseTime"),
              case let .array(varyList)? = object["varyRequestHeaders"]
        else { return nil }
        var headers: [(name: String, value: String)] = []
        for pair in headerList {
            guard case let .array(p) = pair, p.count == 2, let n = p[0].stringValue, let v = p[1].stringValue else { return nil }
            headers.append((n, v))
        }
        var vary: [(name: String, value: String?)] = []
        for pair in varyList {
            guard case let .array(p) = pair, p.count == 2, let n = p[0].stringValue else { return nil }
            vary.append((n, p[1].stringValue))
        }
        self.init(status: Int(status), headers: headers, requestTime: requestTime,
                  responseTime: responseTime, varyRequestHeaders: vary)
    }
}

extension CompactJSON {
    /// Member `name` as an optional string: `.some(nil)` when missing or null, `nil` when it is
    /// something else (the file is then not valid).
    func optionalString(_ name: String) -> String?? {
        switch self[name] {
        case .none, .some(.null): return .some(nil)
        case let .some(.string(s)): return .some(s)
        default: return nil
        }
    }
}
