// The running executable's DT_RUNPATH (or DT_RPATH), read from /proc/self/exe, and whether the
// process runs in secure-execution mode (AT_SECURE: file capabilities or set-user-ID), in which the
// dynamic linker ignores LD_LIBRARY_PATH and every RUNPATH entry holding $ORIGIN.
//
// The file is read rather than the loaded _DYNAMIC array because whether ld.so relocates that
// array's d_ptr entries in place differs between glibc versions; the file's bytes do not.
// Threading: any thread; no state.
#include "CurlShim.h"
#include <elf.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static int read_at(int fd, void *buffer, size_t size, off_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (char *)buffer + done, size - done, offset + (off_t)done);
        if (n <= 0) return 0;
        done += (size_t)n;
    }
    return 1;
}

int sonde_executable_runpath(char *out, size_t capacity) {
    if (capacity == 0) return 0;
    out[0] = 0;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    int found = 0;
    Elf64_Ehdr header;
    if (!read_at(fd, &header, sizeof header, 0) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0
        || header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum > 256) {
        close(fd);
        return 0;
    }
    Elf64_Phdr programs[256];
    if (!read_at(fd, programs, sizeof(Elf64_Phdr) * header.e_phnum, (off_t)header.e_phoff)) { close(fd); return 0; }
    const Elf64_Phdr *dynamic = NULL;
    for (int i = 0; i < header.e_phnum; i++) if (programs[i].p_type == PT_DYNAMIC) dynamic = &programs[i];
    if (dynamic == NULL || dynamic->p_filesz > 64 * 1024) { close(fd); return 0; }
    size_t count = dynamic->p_filesz / sizeof(Elf64_Dyn);
    Elf64_Dyn *entries = malloc(count * sizeof(Elf64_Dyn) + 1);
    if (entries == NULL) { close(fd); return 0; }
    if (!read_at(fd, entries, count * sizeof(Elf64_Dyn), (off_t)dynamic->p_offset)) { free(entries); close(fd); return 0; }
    Elf64_Addr strtab = 0;
    Elf64_Xword runpath = (Elf64_Xword)-1, rpath = (Elf64_Xword)-1;
    for (size_t i = 0; i < count && entries[i].d_tag != DT_NULL; i++) {
        if (entries[i].d_tag == DT_STRTAB) strtab = entries[i].d_un.d_ptr;
        if (entries[i].d_tag == DT_RUNPATH) runpath = entries[i].d_un.d_val;
        if (entries[i].d_tag == DT_RPATH) rpath = entries[i].d_un.d_val;
    }
    free(entries);
    Elf64_Xword name = runpath != (Elf64_Xword)-1 ? runpath : rpath;
    if (strtab != 0 && name != (Elf64_Xword)-1) {
        // DT_STRTAB is a virtual address: find the loaded segment that holds it.
        for (int i = 0; i < header.e_phnum; i++) {
            const Elf64_Phdr *p = &programs[i];
            if (p->p_type != PT_LOAD || strtab < p->p_vaddr || strtab >= p->p_vaddr + p->p_filesz) continue;
            off_t offset = (off_t)(p->p_offset + (strtab - p->p_vaddr) + name);
            ssize_t n = pread(fd, out, capacity - 1, offset);
            if (n > 0) {
                out[n] = 0;
                out[strnlen(out, (size_t)n)] = 0;
                found = 1;
            }
            break;
        }
    }
    close(fd);
    return found;
}

int sonde_secure_execution(void) {
    return getauxval(AT_SECURE) != 0;
}
