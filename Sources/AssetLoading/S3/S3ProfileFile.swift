#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The sections of an AWS shared file (`~/.aws/credentials`, `~/.aws/config`): `[name]` or
/// `[profile name]` headers and `key = value` lines; `#` and `;` start comments.
struct S3ProfileFile: Sendable {
    /// The settings of each section, keys lowercased.
    var sections: [String: [String: String]]

    init(text: String) {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.trimmedOfSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                var name = Substring(line).dropFirst().dropLast().trimmedOfSpaces
                if name.hasPrefix("profile ") { name = name.dropFirst("profile ".count).trimmedOfSpaces }
                current = name
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmedOfSpaces.lowercased()
            let value = line[line.index(after: equals)...].trimmedOfSpaces
            sections[current, default: [:]][key] = value
        }
        self.sections = sections
    }

    /// The file at `path`, or nil when it cannot be read.
    static func load(path: String) -> S3ProfileFile? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return S3ProfileFile(text: String(decoding: data, as: UTF8.self))
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmedOfSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = self.firstIndex(where: { !isSpace($0) }), let last = self.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
