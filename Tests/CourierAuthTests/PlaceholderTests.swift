import CourierAuth
import Testing

@Test func placeholderAuthLinks() {}
