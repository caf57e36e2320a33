/* startup.c - the smallest start-up a Cortex-M needs, for QEMU's MPS2
   AN386 board (Cortex-M4F): the vector table, a reset handler that copies
   .data, zeroes .bss, turns the FPU on and calls main, and output and exit
   through semihosting (no C library I/O, so nothing of stdio is linked).
   The stack is painted before main and measured after it, so a run also
   reports the deepest stack the program used. */
#include <stdint.h>
#include <string.h>

#include "emb.h"

int main(void);

/* From mps2_an386.ld. */
extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _stack_bottom[], _stack_top[];

/* Semihosting: operation in r0, argument in r1, BKPT 0xAB. */
static uintptr_t semihost(uintptr_t op, const void *arg) {
    register uintptr_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#define SYS_WRITE0 0x04u
#define SYS_EXIT 0x18u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u /* QEMU exits with status 0 */
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u    /* QEMU exits with status 1 */

void emb_write(const char *s) { semihost(SYS_WRITE0, s); }

static void emb_exit(int ok) {
    /* On M-profile the reason is passed in r1 itself, not in a block. */
    semihost(SYS_EXIT, (const void *)(ok ? ADP_STOPPED_APPLICATION_EXIT : ADP_STOPPED_RUNTIME_ERROR));
    for (;;) {
    }
}

void emb_assert_failed(int line) {
    emb_write("ISDB_ASSERT failed at isdbandit.h:");
    emb_write_uint((unsigned long)line);
    emb_write("\n");
    emb_exit(0);
}

#define STACK_PAINT 0xa5a5a5a5u

static void fault_handler(void) {
    emb_write("fault\n");
    emb_exit(0);
}

/* Named by the vector table and the linker script (ENTRY). */
void reset_handler(void);

void reset_handler(void) {
    volatile uint32_t *cpacr = (volatile uint32_t *)0xe000ed88u;
    uint32_t *w, *sp;
    int status;
    /* CP10 and CP11 full access, before any floating-point instruction. */
    *cpacr |= 0xfu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    memcpy(_sdata, _sidata, (size_t)((char *)_edata - (char *)_sdata));
    memset(_sbss, 0, (size_t)((char *)_ebss - (char *)_sbss));
    /* Paint the stack below this frame (with a margin for the calls below). */
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (w = _stack_bottom; w < sp - 64; ++w) *w = STACK_PAINT;
    status = main();
    for (w = _stack_bottom; w < _stack_top && *w == STACK_PAINT; ++w) {
    }
    emb_write("stack used ");
    emb_write_uint((unsigned long)((char *)_stack_top - (char *)w));
    emb_write(" bytes (of ");
    emb_write_uint((unsigned long)((char *)_stack_top - (char *)_stack_bottom));
    emb_write(")\n");
    emb_exit(status == 0);
}

/* The initial stack pointer, then the exception handlers (ARMv7-M). */
typedef struct vector_table {
    uint32_t *initial_sp;
    void (*handlers[15])(void);
} vector_table;

__attribute__((section(".vectors"), used)) static const vector_table vectors = {
    _stack_top,
    {reset_handler, fault_handler, fault_handler, fault_handler, fault_handler, fault_handler}};
