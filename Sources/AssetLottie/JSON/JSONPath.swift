/// Builds JSON paths such as `$.layers[3].parent` for error messages and validation problems.
enum JSONPath {
    /// `.key` for plain keys, `["key"]` for the others.
    static func member(_ key: String) -> String {
        let isPlain = !key.isEmpty && key.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
        }
        if isPlain { return "." + key }
        var escaped = ""
        for scalar in key.unicodeScalars.prefix(200) {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "[\"" + escaped + "\"]"
    }
}
