! The tsshim demo: a legacy-style program whose time goes into plain BLAS
! GEMM calls of tall-and-skinny shapes, run unchanged with and without
! LD_PRELOAD=libtsshim.so (examples/run-demo.sh does both and compares).
!
! Block subspace iteration with Rayleigh-Ritz and CholeskyQR2 for the b
! largest eigenvalues of a dense symmetric (complex: Hermitian) n x n matrix A.
! One iteration, V (n x b) orthonormal on entry:
!   W = A V                          gemm N,N   m=n k=n n=b    TSM2
!   H = V^H W                        gemm C,N   m=n=b   k=n    TSMTTSM (real: T,N)
!   H = Q diag(theta) Q^H            LAPACK ?syev / zheev
!   T = V Q,  V = W Q                gemm N,N   m=n k=n=b      TSMM
!   residuals ||V_i - theta_i T_i|| (V_i = A T_i), then V is the next block
!   CholeskyQR2, twice: G = V^H V (TSMTTSM), G = R^H R (?potrf),
!                       R^-1 (?trtri), V = V R^-1 (TSMM)
! A = H D H^H with H = I - 2 u u^H, a Householder reflector from a fixed-seed
! generator: dense, reproducible, and its eigenvalues are exactly d_i.
!
! One source, three programs: the .F90 suffix has the compiler preprocess it
! (gfortran -cpp), with exactly one of
!   -DPREC_S (sgemm_, ssyev, spotrf), -DPREC_D (dgemm_, dsyev, dpotrf),
!   -DPREC_Z (zgemm_ with conjugate transposes, zheev, zpotrf).
! Usage: subspace_{s,d,z} [n [b [iterations [report_every]]]]
! (defaults 6000 16 60 10).  Prints the Ritz values and residuals every
! report_every iterations, a final table against the exact eigenvalues, and
! one line starting with "time" (the only line that differs between runs).

#if defined(PREC_S)
#define WP 4
#define SCALAR real(WP)
#define WIDE real(8)
#define GEMM sgemm
#define POTRF spotrf
#define TRTRI strtri
#define EIGEN ssyev
#define HERM 'T'
#define CONJ(x) (x)
#define TO_WP(x) real(x, WP)
#define LABEL 'single precision real (sgemm_)'
#elif defined(PREC_D)
#define WP 8
#define SCALAR real(WP)
#define WIDE real(8)
#define GEMM dgemm
#define POTRF dpotrf
#define TRTRI dtrtri
#define EIGEN dsyev
#define HERM 'T'
#define CONJ(x) (x)
#define TO_WP(x) real(x, WP)
#define LABEL 'double precision real (dgemm_)'
#elif defined(PREC_Z)
#define WP 8
#define SCALAR complex(WP)
#define WIDE complex(8)
#define GEMM zgemm
#define POTRF zpotrf
#define TRTRI ztrtri
#define EIGEN zheev
#define HERM 'C'
#define CONJ(x) conjg(x)
#define TO_WP(x) cmplx(x, kind=WP)
#define LABEL 'double precision complex (zgemm_)'
#else
#error "compile with one of -DPREC_S, -DPREC_D, -DPREC_Z"
#endif

program subspace_iteration
   use, intrinsic :: iso_fortran_env, only: error_unit
   implicit none
   external GEMM
   SCALAR, parameter :: one = 1, zero = 0
   integer :: n, b, niter, every, it, i
   integer(8) :: seed, t0, t1, rate
   SCALAR, allocatable :: a(:,:), v(:,:), w(:,:), t(:,:), h(:,:), q(:,:)
   real(WP), allocatable :: theta(:), res(:)
   real(8), allocatable :: d(:)
   WIDE, allocatable :: col(:)
   character(len=80) :: rowfmt, headfmt

   n = int_arg(1, 6000)
   b = int_arg(2, 16)
   niter = int_arg(3, 60)
   every = int_arg(4, 10)
   if (n < 2 .or. b < 1 .or. b >= n .or. niter < 1 .or. every < 1) then
      write (error_unit, '(a)') 'usage: subspace [n [b [iterations [report_every]]]]'// &
         ' with 1 <= b < n, iterations >= 1, report_every >= 1'
      stop 2
   end if

   allocate (a(n,n), v(n,b), w(n,b), t(n,b), h(b,b), q(b,b))
   allocate (theta(b), res(b), d(n), col(n))

   ! A decaying top spectrum over a small positive bulk: |theta_b+1 / theta_b|
   ! is about 0.77, so the iteration converges visibly, not in one step.
   do i = 1, n
      d(i) = 10d0 * 0.75d0**(i - 1) + 0.01d0 * dble(n - i + 1) / dble(n)
   end do
   seed = 20251121
   call build_matrix(n, d, a, seed)
   do i = 1, b
      call random_column(n, col, seed)
      v(:, i) = TO_WP(col)
   end do

   write (*, '(a)') 'Block subspace iteration with CholeskyQR2, '//LABEL
   write (*, '(a,i0,a,i0,a,i0)') 'n = ', n, '   block b = ', b, '   iterations = ', niter
   write (*, '(a)') 'A = H diag(d) H^H, H a Householder reflector: exact eigenvalues are d'
   write (*, '(a)') 'residual of a Ritz pair (theta, x): ||A x - theta x|| / |theta|'
   write (*, '(a6, 2a16, a12)') 'iter', 'theta(1)', 'theta(b)', 'max resid.'

   call system_clock(t0, rate)
   call cholqr2(n, b, v, t, h, 0)
   do it = 1, niter
      ! W = A V (TSM2), H = V^H W (TSMTTSM), H = Q theta Q^H
      call GEMM('N', 'N', n, b, n, one, a, n, v, n, zero, w, n)
      call GEMM(HERM, 'N', b, b, n, one, v, n, w, n, zero, h, b)
      call ritz_pairs(b, h, q, theta)
      ! Ritz vectors T = V Q and V = W Q = A T (TSMM)
      call GEMM('N', 'N', n, b, b, one, v, n, q, b, zero, t, n)
      call GEMM('N', 'N', n, b, b, one, w, n, q, b, zero, v, n)
      do i = 1, b
         res(i) = sqrt(sum(abs(v(:, i) - theta(i) * t(:, i))**2)) / abs(theta(i))
      end do
      if (it == 1 .or. mod(it, every) == 0 .or. it == niter) then
         write (*, '(i6, 2es16.7, es12.3)') it, theta(1), theta(b), maxval(res)
      end if
      ! The power step: A T, orthonormalized, is the next block.
      if (it < niter) call cholqr2(n, b, v, t, h, it)
   end do
   call system_clock(t1)

   write (*, '(a,i0,a)') 'Ritz values after ', niter, ' iterations and the exact eigenvalues'
   write (rowfmt, '(a,i0,a,i0,a)') '(i6, 2es', precision(theta) + 10, '.', &
      precision(theta), ', 2es11.2)'
   write (headfmt, '(a,i0,a)') '(a6, 2a', precision(theta) + 10, ', 2a11)'
   write (*, headfmt) 'i', 'theta(i)', 'exact', '|error|', 'residual'
   do i = 1, b
      write (*, rowfmt) i, theta(i), real(d(i), WP), abs(theta(i) - d(i)), res(i)
   end do
   write (*, '(a, f10.3, a)') 'time ', dble(t1 - t0) / dble(rate), ' s (iterations, after building A)'

contains

   ! Optional positional integer argument i, or def when absent.
   integer function int_arg(i, def)
      integer, intent(in) :: i, def
      character(len=32) :: arg
      integer :: ios
      int_arg = def
      if (command_argument_count() < i) return
      call get_command_argument(i, arg)
      read (arg, *, iostat=ios) int_arg
      if (ios /= 0) then
         write (error_unit, '(a,a)') 'not an integer: ', trim(arg)
         stop 2
      end if
   end function int_arg

   ! Park-Miller minimal standard generator, uniform in (-1, 1): the same
   ! stream on every machine, so the printed digits are reproducible.
   real(8) function uniform(seed)
      integer(8), intent(inout) :: seed
      seed = mod(16807_8 * seed, 2147483647_8)
      uniform = 2d0 * dble(seed) / 2147483647d0 - 1d0
   end function uniform

   subroutine random_column(n, x, seed)
      integer, intent(in) :: n
      WIDE, intent(out) :: x(n)
      integer(8), intent(inout) :: seed
      integer :: i
      do i = 1, n
#if defined(PREC_Z)
         x(i) = cmplx(uniform(seed), uniform(seed), 8)
#else
         x(i) = uniform(seed)
#endif
      end do
   end subroutine random_column

   ! a = H diag(d) H^H with H = I - 2 u u^H, ||u|| = 1, expanded entrywise
   ! (d_i delta_ij - 2 u_i w_j^H - 2 w_i u_j^H + 4 g u_i u_j^H, w = D u,
   ! g = u^H D u) in double so every precision gets the same matrix.
   subroutine build_matrix(n, d, a, seed)
      integer, intent(in) :: n
      real(8), intent(in) :: d(n)
      SCALAR, intent(out) :: a(n, n)
      integer(8), intent(inout) :: seed
      WIDE, allocatable :: u(:), wv(:)
      WIDE :: aij
      real(8) :: g
      integer :: i, j
      allocate (u(n), wv(n))
      call random_column(n, u, seed)
      u = u / sqrt(sum(abs(u)**2))
      wv = d * u
      g = real(sum(CONJ(u) * wv), 8)
      do j = 1, n
         do i = 1, n
            aij = -2 * u(i) * CONJ(wv(j)) - 2 * wv(i) * CONJ(u(j)) + 4 * g * u(i) * CONJ(u(j))
            if (i == j) aij = aij + d(i)
            a(i, j) = TO_WP(aij)
         end do
      end do
   end subroutine build_matrix

   ! Eigenpairs of the small Hermitian h, largest first: q holds the
   ! eigenvectors, theta the eigenvalues (LAPACK returns them ascending).
   subroutine ritz_pairs(b, h, q, theta)
      integer, intent(in) :: b
      SCALAR, intent(inout) :: h(b, b)
      SCALAR, intent(out) :: q(b, b)
      real(WP), intent(out) :: theta(b)
      external EIGEN
      SCALAR :: work(64 * b)
      real(WP) :: ev(b)
      integer :: j, info
#if defined(PREC_Z)
      real(WP) :: rwork(3 * b)
      call EIGEN('V', 'U', b, h, b, ev, work, size(work), rwork, info)
#else
      call EIGEN('V', 'U', b, h, b, ev, work, size(work), info)
#endif
      if (info /= 0) then
         write (error_unit, '(a,i0)') 'eigensolver failed, info = ', info
         stop 3
      end if
      do j = 1, b
         q(:, j) = h(:, b + 1 - j)
         theta(j) = ev(b + 1 - j)
      end do
   end subroutine ritz_pairs

   ! CholeskyQR2: x = Q R with Q orthonormal, Q returned in x; y and g are
   ! workspace.  One pass leaves an orthogonality error near cond(x)^2 eps,
   ! the second pass removes it.
   subroutine cholqr2(n, b, x, y, g, it)
      integer, intent(in) :: n, b, it
      SCALAR, intent(inout) :: x(n, b)
      SCALAR, intent(out) :: y(n, b), g(b, b)
      call cholqr(n, b, x, y, g, it)
      call cholqr(n, b, y, x, g, it)
   end subroutine cholqr2

   ! y = x R^-1 where x^H x = R^H R: the triangular solve done as a GEMM with
   ! the explicit inverse, the way a TSMM kernel wants it.
   subroutine cholqr(n, b, x, y, g, it)
      integer, intent(in) :: n, b, it
      SCALAR, intent(in) :: x(n, b)
      SCALAR, intent(out) :: y(n, b), g(b, b)
      external POTRF, TRTRI
      integer :: i, info
      call GEMM(HERM, 'N', b, b, n, one, x, n, x, n, zero, g, b)
      call POTRF('U', b, g, b, info)
      if (info == 0) call TRTRI('U', 'N', b, g, b, info)
      if (info /= 0) then
         write (error_unit, '(a,i0,a,i0)') 'CholeskyQR failed at iteration ', it, ', info = ', info
         stop 3
      end if
      do i = 1, b - 1
         g(i + 1:b, i) = zero
      end do
      call GEMM('N', 'N', n, b, b, one, x, n, g, b, zero, y, n)
   end subroutine cholqr

end program subspace_iteration
