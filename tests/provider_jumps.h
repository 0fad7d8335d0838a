/* A test provider's routines as jumps through pointers it fills in at
 * load time (x86-64 ELF only: the jump passes any signature untouched).
 * PROVIDER_JUMPS(LIST), where LIST(X) expands rows of the routine list,
 * defines for each row a hidden pointer target_<symbol>, the exported
 * symbol jumping through it, and targets[], the names with their pointers. */
#ifndef TS_PROVIDER_JUMPS_H
#define TS_PROVIDER_JUMPS_H

#define PROVIDER_TARGET(symbol, prec, args, abi) void *target_##symbol __attribute__((visibility("hidden")));
#define PROVIDER_JUMP(symbol, prec, args, abi)                                                          \
    __asm__(".text\n .globl " #symbol "\n .type " #symbol ", @function\n" #symbol ":\n"                  \
            " jmp *target_" #symbol "(%rip)\n .size " #symbol ", .-" #symbol "\n");
#define PROVIDER_ROW(symbol, prec, args, abi) { #symbol, &target_##symbol },
#define PROVIDER_JUMPS(LIST)                                                                            \
    LIST(PROVIDER_TARGET)                                                                               \
    LIST(PROVIDER_JUMP)                                                                                 \
    static const struct {                                                                               \
        const char *name;                                                                               \
        void **target;                                                                                  \
    } targets[] = { LIST(PROVIDER_ROW) };

#endif
