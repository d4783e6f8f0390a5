extension LottieLayer {
    init(object: JSONObject) {
        let members = object.uniqueMembers
        var type: Int?
        for member in members where member.key == "ty" {
            if case .int(let code) = member.value { type = code }
        }
        var width: Double?, height: Double?, timeRemap: LottieAnimatedProperty?
        var color: String?, shapes: JSONValue?, document: JSONValue?
        self.init(content: .null)
        for member in members {
            let value = member.value
            switch member.key {
            case "ty": if type != nil { continue }
            case "nm": if let text = value.stringValue { name = text; continue }
            case "ind": if case .int(let number) = value { index = number; continue }
            case "parent": if case .int(let number) = value { parent = number; continue }
            case "refId": if let text = value.stringValue { referenceID = text; continue }
            case "ip": if let number = value.doubleValue { inPoint = number; continue }
            case "op": if let number = value.doubleValue { outPoint = number; continue }
            case "st": if let number = value.doubleValue { startTime = number; continue }
            case "sr": if let number = value.doubleValue { stretch = number; continue }
            case "ks": if case .object(let inner) = value { transform = LottieTransform(object: inner); continue }
            case "ddd": if case .int(let number) = value { threeD = number; continue }
            case "ao": if case .int(let number) = value { autoOrient = number; continue }
            case "hd": if case .bool(let flag) = value { hidden = flag; continue }
            case "masksProperties": if case .array(let list) = value { masks = list; continue }
            case "tt": if case .int(let number) = value { matteMode = number; continue }
            case "td": if case .int(let number) = value { matteTarget = number; continue }
            case "tp": if case .int(let number) = value { matteParent = number; continue }
            case "ef": if case .array(let list) = value { effects = list; continue }
            case "bm": if case .int(let number) = value { blendMode = number; continue }
            case "w" where type == 0: if let number = value.doubleValue { width = number; continue }
            case "h" where type == 0: if let number = value.doubleValue { height = number; continue }
            case "tm" where type == 0:
                if case .object(let inner) = value { timeRemap = LottieAnimatedProperty(object: inner); continue }
            case "sc" where type == 1: if let text = value.stringValue { color = text; continue }
            case "sw" where type == 1: if let number = value.doubleValue { width = number; continue }
            case "sh" where type == 1: if let number = value.doubleValue { height = number; continue }
            case "shapes" where type == 4: shapes = value; continue
            case "t" where type == 5: document = value; continue
            default: break
            }
            extra.members.append(member)
        }
        switch type {
        case 0: content = .precomposition(width: width, height: height, timeRemap: timeRemap)
        case 1: content = .solid(color: color, width: width, height: height)
        case 2: content = .image
        case 3: content = .null
        case 4: content = .shape(shapes: shapes)
        case 5: content = .text(document: document)
        default: content = .unknown(type: type)
        }
    }

    /// The layer as JSON.
    public var json: JSONValue {
        var object = JSONObject()
        object.members.reserveCapacity(extra.count + 16)
        object.append("ty", content.typeCode.map(JSONValue.int))
        object.append("nm", name.map(JSONValue.string))
        object.append("ind", index.map(JSONValue.int))
        object.append("parent", parent.map(JSONValue.int))
        object.append("refId", referenceID.map(JSONValue.string))
        object.append("ip", inPoint.map(JSONValue.double))
        object.append("op", outPoint.map(JSONValue.double))
        object.append("st", startTime.map(JSONValue.double))
        object.append("sr", stretch.map(JSONValue.double))
        object.append("ks", transform?.json)
        object.append("ddd", threeD.map(JSONValue.int))
        object.append("ao", autoOrient.map(JSONValue.int))
        object.append("hd", hidden.map(JSONValue.bool))
        object.append("masksProperties", masks.map(JSONValue.array))
        object.append("tt", matteMode.map(JSONValue.int))
        object.append("td", matteTarget.map(JSONValue.int))
        object.append("tp", matteParent.map(JSONValue.int))
        object.append("ef", effects.map(JSONValue.array))
        object.append("bm", blendMode.map(JSONValue.int))
        switch content {
        case .precomposition(let width, let height, let timeRemap):
            object.append("w", width.map(JSONValue.double))
            object.append("h", height.map(JSONValue.double))
            object.append("tm", timeRemap?.json)
        case .solid(let color, let width, let height):
            object.append("sc", color.map(JSONValue.string))
            object.append("sw", width.map(JSONValue.double))
            object.append("sh", height.map(JSONValue.double))
        case .shape(let shapes):
            object.append("shapes", shapes)
        case .text(let document):
            object.append("t", document)
        case .image, .null, .unknown:
            break
        }
        object.members += extra.members
        return .object(object)
    }
}
