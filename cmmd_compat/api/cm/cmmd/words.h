/*
 * <cm/cmmd/words.h> -- part of <cm/cmmd.h> (which includes it last).
 *
 * The argument words of an active message are 32-bit ints, as on the
 * CM-5.  CM-5 code also put pointers and doubles (two words) in them,
 * which only a 32-bit build carries unchanged: `cm5cc --legacy`
 * (doc/porting.md).  In a 64-bit build such a call would compile and then
 * deliver garbage, so here CMAML_request, _reply, _rpc and their _tohost
 * forms refuse at compile time a word that is a pointer (an array, a
 * string, a function) or a floating-point value.  Integer words of any
 * size compile silently.  Active with GCC and clang in C99 and later,
 * with GCC in gnu89 too, and in C++11; off in strict C89, with clang in
 * gnu89 and with CMMD_NO_WORD_CHECK defined.  A call without arguments (the K&R
 * redeclaration `extern void CMAML_request();`) is left alone.
 */
#ifndef _CM_CMMD_WORDS_H
#define _CM_CMMD_WORDS_H

/* Its macros are the system's: a K&R redeclaration compiled with
 * -std=gnu89 -pedantic-errors expands CMAML_request with no argument,
 * which C90 leaves undefined and GCC refuses, except for a system
 * header's macro. */
#if defined(__GNUC__)
#pragma GCC system_header
#endif

#include <cm/cmmd.h>

/* clang in gnu89 mode diagnoses an empty macro argument even from a
 * system header's macro: there the check is off, so that K&R
 * redeclarations compile with -pedantic-errors. */
#if defined(__GNUC__) && defined(__LP64__) && !defined(CMMD_NO_WORD_CHECK) &&  \
    (defined(__cplusplus)                                                      \
         ? __cplusplus >= 201103L                                              \
         : (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) ||       \
               (!defined(__STRICT_ANSI__) && !defined(__clang__)))
#define CMMD_WORD_CHECK 1

/* Variadic macros and __VA_OPT__ are extensions in gnu89 and before C23:
 * no pedantic diagnostic for them in the user's file. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvariadic-macros"
#pragma GCC diagnostic ignored "-Wpedantic"

#define CMMD_WORD_MSG                                                          \
    "pointer or floating-point value in an active-message word: words are "    \
    "32-bit ints here; build CM-5 code that ships pointers or doubles "        \
    "with `cm5cc --legacy` (doc/porting.md)"

#ifdef __cplusplus
/* (Every name here is CMMD_'s: a program may have defined T, N or v.) */
template <class CMMD_T_> struct CMMD_word_bad_ {
    enum { CMMD_v_ = 0 };
};
template <class CMMD_T_> struct CMMD_word_bad_<CMMD_T_ *> {
    enum { CMMD_v_ = 1 };
};
template <> struct CMMD_word_bad_<float> {
    enum { CMMD_v_ = 1 };
};
template <> struct CMMD_word_bad_<double> {
    enum { CMMD_v_ = 1 };
};
template <> struct CMMD_word_bad_<long double> {
    enum { CMMD_v_ = 1 };
};
template <class CMMD_T_>
struct CMMD_word_bad_<CMMD_T_ &> : CMMD_word_bad_<CMMD_T_> {
};
template <class CMMD_T_>
struct CMMD_word_bad_<const CMMD_T_> : CMMD_word_bad_<CMMD_T_> {
};
template <class CMMD_T_>
struct CMMD_word_bad_<volatile CMMD_T_> : CMMD_word_bad_<CMMD_T_> {
};
template <class CMMD_T_, unsigned long CMMD_N_>
struct CMMD_word_bad_<CMMD_T_[CMMD_N_]> {
    enum { CMMD_v_ = 1 };
};
template <class CMMD_T_> struct CMMD_word_bad_<CMMD_T_[]> {
    enum { CMMD_v_ = 1 };
};
#define CMMD_WORD_(x)                                                          \
    static_assert(!CMMD_word_bad_<decltype(x)>::CMMD_v_, CMMD_WORD_MSG)
#define CMMD_WORD_OK_(x) ([&]() { CMMD_WORD_(x); }(), 0)
#else
/* __builtin_classify_type: 5 pointer (and array, function), 8 real,
 * 9 complex. */
#define CMMD_WORD_BAD_(x)                                                      \
    (__builtin_classify_type(x) == 5 || __builtin_classify_type(x) == 8 ||     \
     __builtin_classify_type(x) == 9)
#ifndef _Static_assert
#define CMMD_WORD_OK_(x)                                                       \
    __extension__ sizeof(struct {                                              \
        _Static_assert(!CMMD_WORD_BAD_(x), CMMD_WORD_MSG);                     \
        int CMMD_w_;                                                           \
    })
#else /* C99 with glibc, whose _Static_assert macro drops the message */
#define CMMD_WORD_OK_(x)                                                       \
    __extension__ sizeof(struct {                                              \
        int CMMD_pointer_or_double_in_am_word_needs_cm5cc_legacy               \
            : CMMD_WORD_BAD_(x)                                                \
              ? -1                                                             \
              : 1;                                                             \
    })
#endif
#endif

/* Count the arguments (0 to 6) and check the words after the first K. */
#define CMMD_NARG_(z, a, b, c, d, e, f, n, ...) n
#ifdef __cplusplus /* no K&R redeclarations: never empty */
#define CMMD_NARG(...) CMMD_NARG_(0, __VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#else
#define CMMD_NARG(...)                                                         \
    CMMD_NARG_(0 __VA_OPT__(, ) __VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#endif
#define CMMD_CAT_(a, b) a##b
#define CMMD_CAT(a, b) CMMD_CAT_(a, b)
#define CMMD_FIRST__(a, ...) a
#define CMMD_FIRST_(...) CMMD_FIRST__(__VA_ARGS__, ~)
#define CMMD_APPLY_(m, ...) m(__VA_ARGS__)
#define CMMD_W1(...) CMMD_WORD_OK_(CMMD_FIRST_(__VA_ARGS__))
#define CMMD_W2(x, ...) CMMD_WORD_OK_(x) + CMMD_W1(__VA_ARGS__)
#define CMMD_W3(x, ...) CMMD_WORD_OK_(x) + CMMD_W2(__VA_ARGS__)
#define CMMD_W4(x, ...) CMMD_WORD_OK_(x) + CMMD_W3(__VA_ARGS__)
/* Words of a call with node and handler first (K = 2) or the handler
 * first (K = 1); the count past 4 words is the caller's mistake, which the
 * function reports as on the CM-5 (the extra words are not sent). */
#define CMMD_SKIP2_(n, h, ...) __VA_ARGS__
#define CMMD_SKIP1_(h, ...) __VA_ARGS__
#define CMMD_WK_2_0(...) 0
#define CMMD_WK_2_1(...) 0
#define CMMD_WK_2_2(...) 0
#define CMMD_WK_2_3(...) CMMD_APPLY_(CMMD_W1, CMMD_SKIP2_(__VA_ARGS__))
#define CMMD_WK_2_4(...) CMMD_APPLY_(CMMD_W2, CMMD_SKIP2_(__VA_ARGS__))
#define CMMD_WK_2_5(...) CMMD_APPLY_(CMMD_W3, CMMD_SKIP2_(__VA_ARGS__))
#define CMMD_WK_2_6(...) CMMD_APPLY_(CMMD_W4, CMMD_SKIP2_(__VA_ARGS__))
#define CMMD_WK_1_0(...) 0
#define CMMD_WK_1_1(...) 0
#define CMMD_WK_1_2(...) CMMD_APPLY_(CMMD_W1, CMMD_SKIP1_(__VA_ARGS__))
#define CMMD_WK_1_3(...) CMMD_APPLY_(CMMD_W2, CMMD_SKIP1_(__VA_ARGS__))
#define CMMD_WK_1_4(...) CMMD_APPLY_(CMMD_W3, CMMD_SKIP1_(__VA_ARGS__))
#define CMMD_WK_1_5(...) CMMD_APPLY_(CMMD_W4, CMMD_SKIP1_(__VA_ARGS__))
#define CMMD_WK_1_6(...) CMMD_APPLY_(CMMD_W4, CMMD_SKIP1_(__VA_ARGS__))
#define CMMD_WORDS_OK(k, ...)                                                  \
    CMMD_CAT(CMMD_CAT(CMMD_WK_, k), CMMD_CAT(_, CMMD_NARG(__VA_ARGS__)))       \
    (__VA_ARGS__)
/* Without arguments (a K&R redeclaration): left as written.  The
 * selector is a digit, which no program can have defined as a macro. */
#define CMMD_CALL_0(k, f, ...) f()
#define CMMD_CALL_1(k, f, ...)                                                 \
    ((void)(CMMD_WORDS_OK(k, __VA_ARGS__)), f(__VA_ARGS__))
#ifdef __cplusplus
#define CMMD_CALL(k, f, ...) CMMD_CALL_1(k, f, __VA_ARGS__)
#else
#define CMMD_CALL(k, f, ...)                                                   \
    CMMD_CAT(CMMD_CALL_, CMMD_FIRST_(__VA_OPT__(1, ) 0))(k, f, __VA_ARGS__)
#endif

#define CMAML_request(...) CMMD_CALL(2, CMAML_request, __VA_ARGS__)
#define CMAML_reply(...) CMMD_CALL(2, CMAML_reply, __VA_ARGS__)
#define CMAML_rpc(...) CMMD_CALL(2, CMAML_rpc, __VA_ARGS__)
#define CMAML_request_tohost(...)                                              \
    CMMD_CALL(1, CMAML_request_tohost, __VA_ARGS__)
#define CMAML_reply_tohost(...) CMMD_CALL(1, CMAML_reply_tohost, __VA_ARGS__)
#define CMAML_rpc_tohost(...) CMMD_CALL(1, CMAML_rpc_tohost, __VA_ARGS__)

#pragma GCC diagnostic pop
#endif /* word check */

/* Completion handlers take a pointer to the MCB (CMMD_mcb_handler_t).  In
 * C, CMMD_send_async and CMMD_receive_async keep K&R declarations, which
 * check no argument: a handler written for the MCB by value,
 * void h(CMMD_mcb, void *), is refused here at compile time (it would
 * take the pointer for an MCB and crash).  64-bit and 32-bit alike; off
 * where the word check is off for the language mode, and with
 * CMMD_NO_MCB_CHECK.  C++ has the full prototypes. */
#if defined(__GNUC__) && !defined(__cplusplus) &&                              \
    !defined(CMMD_NO_MCB_CHECK) &&                                             \
    ((defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L) ||             \
     (!defined(__STRICT_ANSI__) && !defined(__clang__)))
#define CMMD_MCB_CHECK 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wvariadic-macros"
#pragma GCC diagnostic ignored "-Wpedantic"
#define CMMD_MCB_BYVAL_(h)                                                     \
    (__builtin_types_compatible_p(__typeof__(h), void(CMMD_mcb, void *)) ||    \
     __builtin_types_compatible_p(__typeof__(h), void (*)(CMMD_mcb, void *)))
#define CMMD_MCB_OK_(h)                                                        \
    __extension__ sizeof(struct {                                              \
        int CMMD_completion_handlers_take_a_pointer_to_the_mcb                 \
            : CMMD_MCB_BYVAL_(h)                                               \
              ? -1                                                             \
              : 1;                                                             \
    })
#define CMMD_MCAT_(a, b) a##b
#define CMMD_MCAT(a, b) CMMD_MCAT_(a, b)
#define CMMD_MFIRST__(a, ...) a
#define CMMD_MFIRST_(...) CMMD_MFIRST__(__VA_ARGS__, ~)
#define CMMD_MFIFTH_(a, b, c, d, e, ...) e
#define CMMD_MCB_CALL_0(f, ...) f()
#define CMMD_MCB_CALL_1(f, ...)                                                \
    ((void)CMMD_MCB_OK_(CMMD_MFIFTH_(__VA_ARGS__, 0, 0, 0, 0, 0)),             \
     f(__VA_ARGS__))
#define CMMD_MCB_CALL(f, ...)                                                  \
    CMMD_MCAT(CMMD_MCB_CALL_, CMMD_MFIRST_(__VA_OPT__(1, ) 0))(f, __VA_ARGS__)
#define CMMD_send_async(...) CMMD_MCB_CALL(CMMD_send_async, __VA_ARGS__)
#define CMMD_receive_async(...) CMMD_MCB_CALL(CMMD_receive_async, __VA_ARGS__)
#pragma GCC diagnostic pop
#endif /* MCB check */

#endif /* _CM_CMMD_WORDS_H */
