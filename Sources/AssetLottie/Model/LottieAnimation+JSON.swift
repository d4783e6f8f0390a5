extension LottieAnimation {
    /// Builds the model from a parsed document (lenient: nothing is required).
    public init(json: JSONValue, maxLayers: Int = LottieParser.Configuration().maxLayers) throws(LottieError) {
        guard case .object(let object) = json else {
            throw LottieError.notAnAnimation.with("the top level is not a JSON object", path: "$")
        }
        var decoder = LottieModelDecoder(maxLayers: maxLayers)
        try self.init(object: object, decoder: &decoder)
    }

    init(object: JSONObject, decoder: inout LottieModelDecoder) throws(LottieError) {
        self.init()
        for member in object.uniqueMembers {
            let value = member.value
            switch member.key {
            case "v":
                switch value {
                case .string(let text): version = text; continue
                case .int(let number): version = String(number); versionIsNumber = true; continue
                case .double(let number): version = number.description; versionIsNumber = true; continue
                default: break
                }
            case "fr": if let number = value.doubleValue { frameRate = number; continue }
            case "ip": if let number = value.doubleValue { inPoint = number; continue }
            case "op": if let number = value.doubleValue { outPoint = number; continue }
            case "w": if let number = value.doubleValue { width = number; continue }
            case "h": if let number = value.doubleValue { height = number; continue }
            case "nm": if let text = value.stringValue { name = text; continue }
            case "ddd": if case .int(let number) = value { threeD = number; continue }
            case "markers":
                if let list = value.objectElements { markers = list.map(LottieMarker.init(object:)); continue }
            case "fonts":
                if case .object(let inner) = value { fonts = LottieFontList(object: inner); continue }
            case "chars":
                if let list = value.objectElements { characters = list.map(LottieCharacter.init(object:)); continue }
            case "assets":
                if let list = value.objectElements {
                    var typed: [LottieAsset] = []
                    typed.reserveCapacity(list.count)
                    for inner in list { typed.append(try LottieAsset(object: inner, decoder: &decoder)) }
                    assets = typed
                    continue
                }
            case "layers":
                if case .array(let list) = value, let typed = try decoder.layers(list) { layers = typed; continue }
            default: break
            }
            extra.members.append(member)
        }
    }

    /// The animation as JSON: typed fields first, then the members kept in `extra`.
    public var json: JSONValue {
        var object = JSONObject()
        object.members.reserveCapacity(extra.count + 14)
        if let version {
            if versionIsNumber, let number = Int(version) {
                object.append("v", .int(number))
            } else if versionIsNumber, let number = Double(version) {
                object.append("v", .double(number))
            } else {
                object.append("v", .string(version))
            }
        }
        object.append("fr", frameRate.map(JSONValue.double))
        object.append("ip", inPoint.map(JSONValue.double))
        object.append("op", outPoint.map(JSONValue.double))
        object.append("w", width.map(JSONValue.double))
        object.append("h", height.map(JSONValue.double))
        object.append("nm", name.map(JSONValue.string))
        object.append("ddd", threeD.map(JSONValue.int))
        object.append("markers", markers.map { JSONValue.array($0.map(\.json)) })
        object.append("fonts", fonts?.json)
        object.append("chars", characters.map { JSONValue.array($0.map(\.json)) })
        object.append("assets", assets.map { JSONValue.array($0.map(\.json)) })
        object.append("layers", layers.map { JSONValue.array($0.map(\.json)) })
        object.members += extra.members
        return .object(object)
    }

    /// The animation as compact JSON bytes.
    public func encoded() -> [UInt8] {
        JSONWriter().write(json)
    }
}
