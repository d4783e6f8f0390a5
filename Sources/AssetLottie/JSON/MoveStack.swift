/// A growable stack in manually managed memory whose elements can be moved out without
/// retain/release traffic: the parser's value and key stacks. The owner calls `release()`.
struct MoveStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    subscript(position: Int) -> Element { base[position] }

    @inline(__always)
    mutating func push(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(__always)
    mutating func pop() -> Element {
        count -= 1
        return (base + count).move()
    }

    /// The elements from `start` to the top as an array, moved out; the stack shrinks to `start`.
    mutating func moveOut(from start: Int) -> [Element] {
        let moved = count - start
        let source = base + start
        let array = [Element](unsafeUninitializedCapacity: moved) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: source, count: moved)
            initialized = moved
        }
        count = start
        return array
    }

    /// Shrinks the stack to `start` after the caller moved those elements out itself.
    mutating func forgetMoved(downTo start: Int) {
        count = start
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    /// Deinitializes what is left and frees the memory.
    mutating func release() {
        base.deinitialize(count: count)
        base.deallocate()
        count = 0
        capacity = 0
    }
}
