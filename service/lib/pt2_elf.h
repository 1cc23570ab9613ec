/*
 * pt2_elf.h - generic ELF32/ELF64 reader (little and big endian).
 *
 * Design: every other binary module (cubin, AMD code objects, host .so
 * scanning) sits on top of this one. An ELF image is a byte range of a
 * struct pt2_rd (`base`, `size`), so the same code reads a standalone
 * `.cubin` entry, a cubin nested in a fatbin, or a blob embedded in a host
 * `.so` without a sub-reader or a copy. Only the pieces a scanner needs are
 * read: the header, the section header table, the section-name table, notes,
 * small sections and symbol tables (in bounded chunks). Every offset and size
 * taken from the file is checked against the image size before it is used.
 *
 * Ownership: struct pt2_elf lives on the caller's stack; pt2_elf_open()
 * fills it and pt2_elf_close() releases the section table and names it owns
 * (safe on a zeroed or NULL struct). The reader `rd` is borrowed and must
 * outlive the struct. Not thread-safe per object; distinct objects are
 * independent (no global state).
 */
#ifndef PT2_ELF_H
#define PT2_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "pt2_model.h"
#include "pt2_rd.h"

#define PT2_ELF_SECTIONS_MAX 65535u         /* hard cap on e_shnum (also extended numbering) */
#define PT2_ELF_SHSTRTAB_MAX (256u * 1024u) /* cap on the section-name table */
#define PT2_ELF_SYMNAME_MAX 256u            /* longest symbol name returned by the iterator */

/* e_machine values the scanners care about. */
#define PT2_ELF_EM_386 3u
#define PT2_ELF_EM_PPC 20u
#define PT2_ELF_EM_PPC64 21u
#define PT2_ELF_EM_S390 22u
#define PT2_ELF_EM_ARM 40u
#define PT2_ELF_EM_X86_64 62u
#define PT2_ELF_EM_AARCH64 183u
#define PT2_ELF_EM_CUDA 190u
#define PT2_ELF_EM_INTELGT 205u
#define PT2_ELF_EM_AMDGPU 224u
#define PT2_ELF_EM_RISCV 243u
#define PT2_ELF_EM_LOONGARCH 258u

/* e_type values. */
#define PT2_ELF_ET_REL 1u
#define PT2_ELF_ET_EXEC 2u
#define PT2_ELF_ET_DYN 3u
#define PT2_ELF_ET_CORE 4u

/* Section types and special indices. */
#define PT2_ELF_SHT_PROGBITS 1u
#define PT2_ELF_SHT_SYMTAB 2u
#define PT2_ELF_SHT_STRTAB 3u
#define PT2_ELF_SHT_NOTE 7u
#define PT2_ELF_SHT_NOBITS 8u
#define PT2_ELF_SHT_DYNSYM 11u
#define PT2_ELF_SHN_UNDEF 0u
#define PT2_ELF_SHN_ABS 0xfff1u
#define PT2_ELF_SHN_XINDEX 0xffffu

struct pt2_elf_section {
    const char *name; /* into elf->shstr; "" when unnamed */
    uint32_t type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t entsize;
};

struct pt2_elf {
    struct pt2_rd *rd;             /* borrowed */
    uint64_t base;                 /* offset of the image inside rd */
    uint64_t size;                 /* bytes of rd that belong to the image */
    char label[PT2_PATH_MAX + 32]; /* "<rd->name>" or "<rd->name>@0x<base>" for messages */

    int bits;              /* 32 or 64 */
    int big_endian;        /* 0 LSB, 1 MSB */
    uint8_t osabi;         /* EI_OSABI */
    uint8_t abiversion;    /* EI_ABIVERSION */
    uint16_t type;         /* e_type */
    uint16_t machine;      /* e_machine */
    uint32_t version;      /* e_version (not required to be 1: cubins store the toolkit here) */
    uint32_t flags;        /* e_flags */
    uint64_t phoff;        /* e_phoff */
    uint16_t phentsize;    /* e_phentsize */
    uint16_t phnum;        /* e_phnum as stored (0xffff: extended numbering) */
    uint64_t shoff;        /* e_shoff */
    uint16_t shentsize;    /* e_shentsize */
    uint16_t shnum_raw;    /* e_shnum as stored (0 with extended numbering) */
    uint16_t shstrndx_raw; /* e_shstrndx as stored */

    /* Filled by pt2_elf_load_sections(). */
    int sections_loaded;
    size_t shnum;
    struct pt2_elf_section *sec; /* shnum entries, owned */
    char *shstr;                 /* section-name table plus a NUL, owned */
    size_t shstr_len;
};

struct pt2_elf_sym {
    uint32_t name; /* offset into the linked string table */
    uint8_t info;  /* binding << 4 | type */
    uint8_t other;
    uint32_t shndx; /* section index or PT2_ELF_SHN_ABS / PT2_ELF_SHN_UNDEF */
    uint64_t value;
    uint64_t size;
};

#define PT2_ELF_SYMCHUNK 4096u /* bytes of symbol entries read per call */
#define PT2_ELF_STRWIN 512u    /* bytes of the string table cached per refill */

/*
 * Bounded walk over one symbol table: entries are read in chunks of
 * PT2_ELF_SYMCHUNK bytes and names through a small window over the string
 * table, so a table larger than the read budget never has to be loaded.
 * Holds no heap memory (about 4.5 KiB; callers on small stacks allocate it).
 */
struct pt2_elf_symiter {
    struct pt2_elf *elf;
    const struct pt2_elf_section *symtab;
    const struct pt2_elf_section *strtab; /* NULL when sh_link is not a string table */
    size_t entsize, next, count, limit;
    uint8_t chunk[PT2_ELF_SYMCHUNK];
    size_t chunk_first, chunk_n;
    uint8_t win[PT2_ELF_STRWIN];
    uint64_t win_off;
    size_t win_len;
    char name[PT2_ELF_SYMNAME_MAX];
};

/* 1 when `buf` (len bytes, at least 6 needed) starts an ELF file of a known class and data. */
int pt2_elf_probe(const uint8_t *buf, size_t len);

/*
 * Read and validate the ELF header of the image at [base, base+size) of rd.
 * PT2_ERR_FORMAT with a message naming rd->name when it is not a usable ELF
 * header. Does not read the section table.
 */
int pt2_elf_open(struct pt2_elf *elf, struct pt2_rd *rd, uint64_t base, uint64_t size,
                 struct pt2_error *err);

/* Release what pt2_elf_open/pt2_elf_load_sections allocated. Accepts NULL. */
void pt2_elf_close(struct pt2_elf *elf);

/*
 * Read the section header table and the section-name table (once; later calls
 * return PT2_OK at once). An image without section headers loads as zero
 * sections. PT2_ERR_FORMAT when the table or a name lies outside the image.
 */
int pt2_elf_load_sections(struct pt2_elf *elf, struct pt2_error *err);

/* First section named `name`, or NULL (sections must be loaded). */
const struct pt2_elf_section *pt2_elf_section_by_name(const struct pt2_elf *elf, const char *name);

/* Section at index `i`, or NULL when out of range. */
const struct pt2_elf_section *pt2_elf_section_at(const struct pt2_elf *elf, size_t i);

/* Read `len` bytes at image offset `off` (bounds-checked against the image). */
int pt2_elf_read(struct pt2_elf *elf, uint64_t off, void *buf, size_t len, struct pt2_error *err);

/*
 * Read the contents of section `s` into buf (capacity `cap`). Sections larger
 * than `cap` are clipped to their first `cap` bytes and *clipped is set.
 * NOBITS sections read as empty. PT2_ERR_FORMAT when the section lies outside
 * the image. `clipped` may be NULL.
 */
int pt2_elf_read_section(struct pt2_elf *elf, const struct pt2_elf_section *s, uint8_t *buf,
                         size_t cap, size_t *len, int *clipped, struct pt2_error *err);

/*
 * Find the first note with owner `owner` and type `type` in note section `s`
 * and copy its descriptor into desc (capacity `cap`, clipped). *found is 0
 * when there is none. The section is read up to `cap` + 256 bytes.
 */
int pt2_elf_find_note(struct pt2_elf *elf, const struct pt2_elf_section *s, const char *owner,
                      uint32_t type, uint8_t *desc, size_t cap, size_t *desc_len, int *found,
                      struct pt2_error *err);

/* Endian-aware loads from a buffer read out of this image. */
uint16_t pt2_elf_u16(const struct pt2_elf *elf, const uint8_t *p);
uint32_t pt2_elf_u32(const struct pt2_elf *elf, const uint8_t *p);
uint64_t pt2_elf_u64(const struct pt2_elf *elf, const uint8_t *p);

/*
 * Start a walk over symbol table `symtab` (SHT_SYMTAB or SHT_DYNSYM) from
 * index `first`, visiting at most `limit` entries (0 = no limit beyond the
 * table). PT2_ERR_FORMAT when the table lies outside the image.
 */
int pt2_elf_symiter_init(struct pt2_elf_symiter *it, struct pt2_elf *elf,
                         const struct pt2_elf_section *symtab, size_t first, size_t limit,
                         struct pt2_error *err);

/* Next symbol into *sym: returns 1, 0 at the end, or a negative pt2_status. */
int pt2_elf_symiter_next(struct pt2_elf_symiter *it, struct pt2_elf_sym *sym,
                         struct pt2_error *err);

/*
 * Name of `sym` (read lazily through the window). *name points into the
 * iterator and stays valid until the next call. Names longer than
 * PT2_ELF_SYMNAME_MAX - 1 and names outside the string table give "".
 */
int pt2_elf_symiter_name(struct pt2_elf_symiter *it, const struct pt2_elf_sym *sym,
                         const char **name, struct pt2_error *err);

/* "x86_64", "aarch64", "ppc64le", ... or "em_<n>" into buf. Returns buf. */
const char *pt2_elf_machine_name(unsigned machine, int bits, int big_endian, char *buf, size_t len);

/*
 * Fill the host fields (format, bits, big_endian, e_machine, machine,
 * description, elf_type, size) from the header; leaves `source` alone.
 */
void pt2_elf_describe_host(const struct pt2_elf *elf, struct pt2_host *h);

#endif
