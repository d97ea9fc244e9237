import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Numbers the property wrappers of each object as they initialize, on the current thread.
///
/// Swift initializes a class's stored properties in a fixed order, so the n-th wrapper of an
/// `Employee` is always the same property. Each wrapper keeps its ordinal; the entity maps
/// ordinals to slots once per class, and an accessor then indexes the slot buffer directly.
/// While an entity is being described, the wrappers also record what they declare.
@usableFromInline
final class ReflectionRecorder {
    @usableFromInline @exclusivity(unchecked) var counter: Int32 = 0
    @usableFromInline var blueprints: [Int32: PropertyBlueprint]? {
        didSet { isRecording = blueprints != nil }
    }
    /// Whether a class is being described (wrappers record their declarations).
    @usableFromInline @exclusivity(unchecked) private(set) var isRecording = false
    /// Set by a context just before it instantiates a fetched object, so the initializer
    /// leaves the values unloaded and evaluates no default values.
    var materializing = false
    var materializingID: ObjectID?

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<ReflectionRecorder>.fromOpaque(pointer).release() }
        }
        return key
    }()

    /// This thread's recorder.
    @usableFromInline
    static var current: ReflectionRecorder {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ReflectionRecorder>.fromOpaque(pointer).takeUnretainedValue()
        }
        let recorder = ReflectionRecorder()
        pthread_setspecific(key, Unmanaged.passRetained(recorder).toOpaque())
        return recorder
    }

    /// Called by each wrapper's initializer: its ordinal in the object being created.
    @inline(__always)
    static func nextOrdinal(_ blueprint: () -> PropertyBlueprint) -> Int32 {
        let recorder = current
        let ordinal = recorder.counter
        recorder.counter = ordinal &+ 1
        if recorder.blueprints != nil { recorder.blueprints![ordinal] = blueprint() }
        return ordinal
    }

}

/// A property wrapper's storage inside an object: just its ordinal.
protocol OrdinalProperty {
    var ordinal: Int32 { get }
}
