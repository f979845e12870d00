/*
 * QTest for the Apple S5L UART of apple-m1,soc=t8103
 *
 * Copyright (c) 2026 The QEMU AGX authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "libqtest.h"
#include "qobject/qdict.h"

#define UART_BASE           0x235200000ULL
#define ULCON               0x00
#define UCON                0x04
#define UFCON               0x08
#define UTRSTAT             0x10
#define UFSTAT              0x18
#define UTXH                0x20
#define URXH                0x24
#define UBRDIV              0x28

#define UCON_RXTO_ENA       (1U << 9)
#define UCON_RXTHRESH_ENA   (1U << 12)
#define UCON_TXTHRESH_ENA   (1U << 13)
#define UFCON_FIFO_ENA      (1U << 0)
#define UFCON_RESET_RX      (1U << 1)
#define UFCON_RX_TRIG8      (1U << 4)
#define UTRSTAT_RXDR        (1U << 0)
#define UTRSTAT_TXFE        (1U << 1)
#define UTRSTAT_TXE         (1U << 2)
#define UTRSTAT_RXTHRESH    (1U << 4)
#define UTRSTAT_TXTHRESH    (1U << 5)
#define UTRSTAT_RXTO        (1U << 9)
#define UTRSTAT_ALL_FLAGS   0x3f8
#define UFSTAT_RX_COUNT     0xf
#define UFSTAT_RX_FULL      (1U << 8)
#define UFSTAT_TX_FULL      (1U << 9)

#define UART0_LINE          605

static uint32_t uart_read(QTestState *qts, uint32_t reg)
{
    return qtest_readl(qts, UART_BASE + reg);
}

static void uart_write(QTestState *qts, uint32_t reg, uint32_t val)
{
    qtest_writel(qts, UART_BASE + reg, val);
}

/* The UART's interrupt line, as the AIC sees it */
static bool uart_irq(QTestState *qts)
{
    return qtest_readl(qts, 0x23b100000ULL + 0x4200 + 4 * (UART0_LINE / 32)) &
           (1U << (UART0_LINE % 32));
}

/* As samsung_tty's startup: FIFOs on, RX trigger 8, flags cleared */
static QTestState *uart_init(int *sock_fd)
{
    QTestState *qts = qtest_init_with_serial("-M apple-m1,soc=t8103",
                                             sock_fd);

    uart_write(qts, UFCON, UFCON_FIFO_ENA | UFCON_RESET_RX | UFCON_RX_TRIG8);
    uart_write(qts, UTRSTAT, UTRSTAT_ALL_FLAGS);
    return qts;
}

/* Wait until @n bytes sent on the socket sit in the RX FIFO */
static void wait_rx_count(QTestState *qts, unsigned n)
{
    for (int i = 0; i < 1000; i++) {
        uint32_t ufstat = uart_read(qts, UFSTAT);
        unsigned count = ufstat & UFSTAT_RX_FULL ? 16 :
                         ufstat & UFSTAT_RX_COUNT;

        if (count >= n) {
            g_assert_cmpuint(count, ==, n);
            return;
        }
        g_usleep(1000);
    }
    g_assert_not_reached();
}

static void test_transmit_reaches_chardev(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);
    char buf[8] = {};

    for (const char *p = "M1!"; *p; p++) {
        uart_write(qts, UTXH, *p);
    }
    g_assert_cmpint(recv(sock, buf, 3, MSG_WAITALL), ==, 3);
    g_assert_cmpstr(buf, ==, "M1!");
    close(sock);
    qtest_quit(qts);
}

static void test_tx_fifo_reads_empty(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    uart_write(qts, UTXH, 'x');
    g_assert_cmphex(uart_read(qts, UFSTAT) & (UFSTAT_TX_FULL | 0xf0), ==, 0);
    g_assert_cmphex(uart_read(qts, UTRSTAT) & (UTRSTAT_TXFE | UTRSTAT_TXE),
                    ==, UTRSTAT_TXFE | UTRSTAT_TXE);
    close(sock);
    qtest_quit(qts);
}

static void test_receive_fills_fifo_in_order(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    g_assert_cmpint(send(sock, "abc", 3, 0), ==, 3);
    wait_rx_count(qts, 3);
    g_assert_cmphex(uart_read(qts, UTRSTAT) & UTRSTAT_RXDR, ==, UTRSTAT_RXDR);
    g_assert_cmphex(uart_read(qts, URXH), ==, 'a');
    g_assert_cmphex(uart_read(qts, URXH), ==, 'b');
    g_assert_cmphex(uart_read(qts, URXH), ==, 'c');
    g_assert_cmphex(uart_read(qts, UFSTAT), ==, 0);
    g_assert_cmphex(uart_read(qts, UTRSTAT) & UTRSTAT_RXDR, ==, 0);
    close(sock);
    qtest_quit(qts);
}

static void test_full_rx_fifo_reports_full(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    g_assert_cmpint(send(sock, "0123456789abcdefXY", 18, 0), ==, 18);
    wait_rx_count(qts, 16);
    g_assert_cmphex(uart_read(qts, UFSTAT), ==, UFSTAT_RX_FULL);
    /* The rest waits in the chardev until there is room */
    g_assert_cmphex(uart_read(qts, URXH), ==, '0');
    wait_rx_count(qts, 16);
    for (const char *p = "123456789abcdefX"; *p; p++) {
        g_assert_cmphex(uart_read(qts, URXH), ==, *p);
    }
    wait_rx_count(qts, 1);
    g_assert_cmphex(uart_read(qts, URXH), ==, 'Y');
    close(sock);
    qtest_quit(qts);
}

static void test_fifo_reset_empties_rx(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    g_assert_cmpint(send(sock, "zz", 2, 0), ==, 2);
    wait_rx_count(qts, 2);
    uart_write(qts, UFCON, UFCON_FIFO_ENA | UFCON_RESET_RX);
    g_assert_cmphex(uart_read(qts, UFSTAT), ==, 0);
    g_assert_cmphex(uart_read(qts, UFCON) & UFCON_RESET_RX, ==, 0);
    close(sock);
    qtest_quit(qts);
}

/*
 * A UART with its FIFO on tells the backend it can take 16 bytes; the
 * backend reads them later, in its own turn of the main loop, maybe after
 * the guest turned the FIFO off: all of them must still be taken.  To
 * have the bytes and the UFCON write arrive in the same turn, the main
 * loop is kept busy (a QMP pmemsave) while both are sent.
 */
static void test_promised_bytes_survive_fifo_off(void)
{
    static const char msg[] = "0123456789abcdef";

    for (int round = 0; round < 4; round++) {
        g_autofree char *log = g_strdup_printf("%s/apple-s5l-%d.log",
                                               g_get_tmp_dir(), getpid());
        g_autofree char *args = g_strdup_printf("-M apple-m1,soc=t8103 "
                                                "-m 1G -d guest_errors "
                                                "-D %s", log);
        int sock;
        QTestState *qts = qtest_init_with_serial(args, &sock);
        g_autofree char *text = NULL;

        uart_write(qts, UFCON, UFCON_FIFO_ENA | UFCON_RESET_RX);
        qtest_qmp_send(qts, "{'execute': 'pmemsave', 'arguments': "
                       "{'val': %" PRIu64 ", 'size': %d, "
                       "'filename': '/dev/null'}}", (uint64_t)0x800000000,
                       512 * 1024 * 1024);
        g_assert_cmpint(send(sock, msg, 16, 0), ==, 16);
        uart_write(qts, UFCON, 0);
        qobject_unref(qtest_qmp_receive(qts));
        for (const char *p = msg; *p; p++) {
            int i;

            for (i = 0; i < 1000; i++) {
                if (uart_read(qts, UTRSTAT) & UTRSTAT_RXDR) {
                    break;
                }
                g_usleep(1000);
            }
            g_assert_cmpint(i, <, 1000);
            g_assert_cmphex(uart_read(qts, URXH), ==, *p);
        }
        close(sock);
        qtest_quit(qts);
        g_assert_true(g_file_get_contents(log, &text, NULL, NULL));
        g_assert_null(strstr(text, "overrun"));
        unlink(log);
    }
}

static void test_rx_below_trigger_raises_timeout(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    uart_write(qts, UCON, UCON_RXTO_ENA | UCON_RXTHRESH_ENA);
    g_assert_false(uart_irq(qts));
    g_assert_cmpint(send(sock, "hi", 2, 0), ==, 2);
    wait_rx_count(qts, 2);
    g_assert_cmphex(uart_read(qts, UTRSTAT) &
                    (UTRSTAT_RXTO | UTRSTAT_RXTHRESH), ==, UTRSTAT_RXTO);
    g_assert_true(uart_irq(qts));
    close(sock);
    qtest_quit(qts);
}

static void test_rx_at_trigger_raises_threshold(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    uart_write(qts, UCON, UCON_RXTHRESH_ENA);
    g_assert_cmpint(send(sock, "12345678", 8, 0), ==, 8);
    wait_rx_count(qts, 8);
    g_assert_cmphex(uart_read(qts, UTRSTAT) & UTRSTAT_RXTHRESH, ==,
                    UTRSTAT_RXTHRESH);
    g_assert_true(uart_irq(qts));
    close(sock);
    qtest_quit(qts);
}

static void test_utrstat_flags_clear_on_write_one(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    uart_write(qts, UCON, UCON_TXTHRESH_ENA | UCON_RXTO_ENA);
    uart_write(qts, UTXH, 'x');
    g_assert_cmpint(send(sock, "y", 1, 0), ==, 1);
    wait_rx_count(qts, 1);
    g_assert_cmphex(uart_read(qts, UTRSTAT) &
                    (UTRSTAT_TXTHRESH | UTRSTAT_RXTO), ==,
                    UTRSTAT_TXTHRESH | UTRSTAT_RXTO);
    /* Writing zeros changes nothing; each one clears its own flag */
    uart_write(qts, UTRSTAT, 0);
    g_assert_cmphex(uart_read(qts, UTRSTAT) &
                    (UTRSTAT_TXTHRESH | UTRSTAT_RXTO), ==,
                    UTRSTAT_TXTHRESH | UTRSTAT_RXTO);
    uart_write(qts, UTRSTAT, UTRSTAT_TXTHRESH);
    g_assert_cmphex(uart_read(qts, UTRSTAT) &
                    (UTRSTAT_TXTHRESH | UTRSTAT_RXTO), ==, UTRSTAT_RXTO);
    g_assert_true(uart_irq(qts));
    uart_write(qts, UTRSTAT, UTRSTAT_RXTO);
    g_assert_false(uart_irq(qts));
    close(sock);
    qtest_quit(qts);
}

static void test_disabled_flags_keep_irq_low(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    uart_write(qts, UTXH, 'x');
    g_assert_cmphex(uart_read(qts, UTRSTAT) & UTRSTAT_TXTHRESH, ==,
                    UTRSTAT_TXTHRESH);
    g_assert_false(uart_irq(qts));
    uart_write(qts, UCON, UCON_TXTHRESH_ENA);
    g_assert_true(uart_irq(qts));
    uart_write(qts, UCON, 0);
    g_assert_false(uart_irq(qts));
    close(sock);
    qtest_quit(qts);
}

static void test_config_registers_keep_values(void)
{
    int sock;
    QTestState *qts = uart_init(&sock);

    uart_write(qts, ULCON, 0x3);
    uart_write(qts, UBRDIV, 0xc);
    g_assert_cmphex(uart_read(qts, ULCON), ==, 0x3);
    g_assert_cmphex(uart_read(qts, UBRDIV), ==, 0xc);
    g_assert_cmphex(uart_read(qts, UFCON), ==, UFCON_FIFO_ENA |
                    UFCON_RX_TRIG8);
    close(sock);
    qtest_quit(qts);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/apple-s5l-uart/tx/reaches-the-chardev",
                   test_transmit_reaches_chardev);
    qtest_add_func("/apple-s5l-uart/tx/fifo-reads-empty",
                   test_tx_fifo_reads_empty);
    qtest_add_func("/apple-s5l-uart/rx/fills-the-fifo-in-order",
                   test_receive_fills_fifo_in_order);
    qtest_add_func("/apple-s5l-uart/rx/full-fifo-reports-full",
                   test_full_rx_fifo_reports_full);
    qtest_add_func("/apple-s5l-uart/rx/promised-bytes-survive-fifo-off",
                   test_promised_bytes_survive_fifo_off);
    qtest_add_func("/apple-s5l-uart/rx/fifo-reset-empties-it",
                   test_fifo_reset_empties_rx);
    qtest_add_func("/apple-s5l-uart/irq/rx-below-trigger-raises-timeout",
                   test_rx_below_trigger_raises_timeout);
    qtest_add_func("/apple-s5l-uart/irq/rx-at-trigger-raises-threshold",
                   test_rx_at_trigger_raises_threshold);
    qtest_add_func("/apple-s5l-uart/irq/flags-clear-on-write-one",
                   test_utrstat_flags_clear_on_write_one);
    qtest_add_func("/apple-s5l-uart/irq/disabled-flags-keep-irq-low",
                   test_disabled_flags_keep_irq_low);
    qtest_add_func("/apple-s5l-uart/config-registers-keep-values",
                   test_config_registers_keep_values);

    return g_test_run();
}
