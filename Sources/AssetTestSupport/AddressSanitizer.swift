#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this process runs under AddressSanitizer (`swift test --sanitize=address`, as
/// `scripts/test-asan` does).
///
/// Tests that bound a process's peak memory skip themselves there: ASan's shadow memory and its
/// quarantine of freed blocks add hundreds of MiB that say nothing about the code under test.
public enum AddressSanitizer {
    /// True when the ASan runtime is linked in (its `__asan_init` symbol resolves).
    public static let isActive: Bool = {
        #if os(Linux)
        return dlsym(nil, "__asan_init") != nil  // nil is RTLD_DEFAULT on glibc
        #else
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__asan_init") != nil  // RTLD_DEFAULT on Darwin
        #endif
    }()
}

/// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`, as
/// `scripts/test-tsan` does). Its shadow memory grows with every byte a process touches, so a bound
/// on peak memory says nothing there either; the children of such a run are built with it too.
public enum ThreadSanitizer {
    /// True when the TSan runtime is linked in (its `__tsan_init` symbol resolves).
    public static let isActive: Bool = {
        #if os(Linux)
        return dlsym(nil, "__tsan_init") != nil
        #else
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil
        #endif
    }()
}
