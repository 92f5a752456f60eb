import CourierCache
import Testing

@Test func placeholderCacheLinks() {}
