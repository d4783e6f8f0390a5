/// A forward-only cursor over the bytes of an HTTP date; each method consumes input only on success.
struct DateScanner {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var isAtEnd: Bool { self.index == self.bytes.endIndex }

    /// Consumes `byte` if it is next.
    mutating func skip(_ byte: UInt8) -> Bool {
        guard self.index < self.bytes.endIndex, self.bytes[self.index] == byte else { return false }
        self.index += 1
        return true
    }

    /// Consumes a run of ASCII letters and returns its length, or nil when there is none.
    mutating func skipLetters() -> Int? {
        let start = self.index
        while self.index < self.bytes.endIndex {
            let lower = self.bytes[self.index] | 0x20
            guard lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { break }
            self.index += 1
        }
        return self.index == start ? nil : self.index - start
    }

    /// Consumes exactly `count` ASCII digits and returns their value.
    mutating func digits(exactly count: Int) -> Int? {
        guard self.bytes.endIndex - self.index >= count else { return nil }
        var value = 0
        for offset in 0..<count {
            let byte = self.bytes[self.index + offset]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        self.index += count
        return value
    }

    /// Consumes a case-sensitive three-letter month name and returns 1...12.
    mutating func month() -> Int? {
        guard self.bytes.endIndex - self.index >= 3 else { return nil }
        let name = self.bytes[self.index..<(self.index + 3)]
        guard let month = HTTPDate.monthNames.firstIndex(where: { $0.utf8.elementsEqual(name) }) else { return nil }
        self.index += 3
        return month + 1
    }

    /// Consumes `HH:MM:SS`.
    mutating func timeOfDay() -> (hour: Int, minute: Int, second: Int)? {
        let start = self.index
        guard let hour = self.digits(exactly: 2), self.skip(UInt8(ascii: ":")),
            let minute = self.digits(exactly: 2), self.skip(UInt8(ascii: ":")),
            let second = self.digits(exactly: 2)
        else {
            self.index = start
            return nil
        }
        return (hour, minute, second)
    }

    /// Consumes ` GMT`.
    mutating func skipGMT() -> Bool {
        let start = self.index
        for byte in " GMT".utf8 where !self.skip(byte) {
            self.index = start
            return false
        }
        return true
    }
}
