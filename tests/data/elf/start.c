/* No libc: _start exits with status 0 through the exit system call. */
void _start(void) {
#if defined(__x86_64__)
  __asm__ volatile("mov $60, %eax\n xor %edi, %edi\n syscall");
#else
  __asm__ volatile("mov $1, %eax\n xor %ebx, %ebx\n int $0x80");
#endif
}
