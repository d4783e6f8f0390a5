/// A Codable mirror of the parts of a Lottie animation that `LottieAnimation` types (top level,
/// assets, layers), with untyped content as a generic JSON enum: what a Codable-based loader
/// (lottie-ios's approach) decodes, for comparing against `JSONDecoder`.
extension LottieBenchmark {
    struct CodableAnimation: Decodable {
        var v: AnyJSON?
        var fr: Double?
        var ip: Double?
        var op: Double?
        var w: Double?
        var h: Double?
        var nm: String?
        var ddd: Int?
        var markers: [AnyJSON]?
        var fonts: AnyJSON?
        var chars: [AnyJSON]?
        var assets: [CodableAsset]?
        var layers: [CodableLayer]?
    }

    struct CodableAsset: Decodable {
        var id: String?
        var nm: String?
        var fr: Double?
        var layers: [CodableLayer]?
        var w: Double?
        var h: Double?
        var u: String?
        var p: String?
        var e: Int?
    }

    struct CodableLayer: Decodable {
        var ty: Int?
        var nm: String?
        var ind: Int?
        var parent: Int?
        var refId: String?
        var ip: Double?
        var op: Double?
        var st: Double?
        var sr: Double?
        var ks: AnyJSON?
        var ddd: Int?
        var ao: Int?
        var hd: Bool?
        var masksProperties: [AnyJSON]?
        var tt: Int?
        var td: Int?
        var tp: Int?
        var ef: [AnyJSON]?
        var bm: Int?
        var w: Double?
        var h: Double?
        var tm: AnyJSON?
        var sc: String?
        var sw: Double?
        var sh: Double?
        var shapes: [AnyJSON]?
        var t: AnyJSON?
    }

    /// The same top level, assets and layers with every untyped member left out: JSONDecoder still
    /// reads the whole document, but no generic JSON value is built. JSONDecoder's best case.
    struct SkeletonAnimation: Decodable {
        var v: AnyJSON?
        var fr: Double?
        var ip: Double?
        var op: Double?
        var w: Double?
        var h: Double?
        var nm: String?
        var assets: [SkeletonAsset]?
        var layers: [SkeletonLayer]?
    }

    struct SkeletonAsset: Decodable {
        var id: String?
        var layers: [SkeletonLayer]?
        var u: String?
        var p: String?
        var e: Int?
    }

    struct SkeletonLayer: Decodable {
        var ty: Int?
        var nm: String?
        var ind: Int?
        var parent: Int?
        var refId: String?
        var ip: Double?
        var op: Double?
        var st: Double?
        var sr: Double?
    }

    /// Any JSON value.
    enum AnyJSON: Decodable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([AnyJSON])
        case object([String: AnyJSON])

        private struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        /// Probes numbers first (the most common value in Lottie files), then containers: each
        /// failed probe costs a thrown `DecodingError`, and Codable offers no way to peek at the kind.
        init(from decoder: Decoder) throws {
            let single = try decoder.singleValueContainer()
            if let value = try? single.decode(Double.self) {
                self = .number(value)
            } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
                var members: [String: AnyJSON] = [:]
                for key in object.allKeys { members[key.stringValue] = try object.decode(AnyJSON.self, forKey: key) }
                self = .object(members)
            } else if var list = try? decoder.unkeyedContainer() {
                var elements: [AnyJSON] = []
                while !list.isAtEnd { elements.append(try list.decode(AnyJSON.self)) }
                self = .array(elements)
            } else if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(String.self) {
                self = .string(value)
            } else {
                self = .bool(try single.decode(Bool.self))
            }
        }
    }
}
