/*
 * jvm_util.h - what the JVM tools' parsers (maven, gradle) share: Java
 * stack frames and the source file a class is in.  Library-internal.
 *
 * A JVM stack trace names classes and base names ("at
 * bank.AccountTest.interest(AccountTest.java:18)"), never a path.  The
 * path is rebuilt from the build tools' layout: the package's directories
 * under src/test/java (src/test/kotlin) for test classes, src/main/java
 * (src/main/kotlin) for the others, below the module's directory.
 */
#ifndef CALLUS_PARSE_JVM_UTIL_H
#define CALLUS_PARSE_JVM_UTIL_H

#include <stddef.h>

#include "callus/buf.h"

/* One frame; spans point into the line. */
typedef struct callus_jvm_frame {
	const char *cls, *method, *file;
	size_t cls_len, method_len, file_len;
	long line; /* 0: "Unknown Source", "Native Method" */
} callus_jvm_frame;

/* "at pkg.Class.method(File.java:18)", blanks or a tab before it, a
 * module before the class ("java.base/java.util.ArrayList.get"). */
int callus_jvm_frame_parse(const char *s, size_t len, callus_jvm_frame *f);

/* A class of the JDK, of a test framework or of a build tool: never the
 * project's. */
int callus_jvm_third_party(const char *cls, size_t len);

/* A class the project's tests are in: the failing test's own class, or
 * a name a test runner looks for (FooTest, FooTests, FooIT, TestFoo). */
int callus_jvm_is_test_class(const char *cls, size_t len);

/*
 * The source of a frame's class: base (a module's directory as printed,
 * may be empty: the current directory), then src/test/java or
 * src/main/java (kotlin for a .kt file), the package's directories and
 * the file's base name, appended to out.  0, or CALLUS_ENOMEM.
 */
int callus_jvm_source(callus_buf *out, const char *base, size_t base_len,
		      const callus_jvm_frame *f, int test);

#endif
