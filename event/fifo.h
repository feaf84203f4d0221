// A first-in first-out queue in one growing ring buffer: pushing and popping allocate
// nothing once it has reached its largest size (std::deque allocates and frees a block
// every few elements as a queue moves through memory). For the timed models' queues.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace lanaikit::sim {

template <class T> class Fifo {
public:
  Fifo() = default;
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;
  ~Fifo() { clear(); }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return *at(0); }
  const T& front() const { return *at(0); }
  T& back() { return *at(size_ - 1); }
  const T& back() const { return *at(size_ - 1); }
  T& operator[](size_t i) { return *at(i); }
  const T& operator[](size_t i) const { return *at(i); }

  template <class... A> T& emplace_back(A&&... a) {
    if (size_ == capacity_) grow();
    T* p = ::new (static_cast<void*>(slot(size_))) T(std::forward<A>(a)...);
    ++size_;
    return *p;
  }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void push_back(const T& v) { emplace_back(v); }
  void pop_front() {
    at(0)->~T();
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }
  void clear() {
    while (size_ > 0) pop_front();
  }

private:
  struct alignas(T) Raw {
    unsigned char bytes[sizeof(T)];
  };
  Raw* slot(size_t i) const { return &buf_[(head_ + i) & (capacity_ - 1)]; }
  T* at(size_t i) const { return std::launder(reinterpret_cast<T*>(slot(i))); }
  void grow() {
    const size_t cap = capacity_ ? 2 * capacity_ : 8;
    std::unique_ptr<Raw[]> bigger(new Raw[cap]);
    for (size_t i = 0; i < size_; ++i) {
      T* old = at(i);
      ::new (static_cast<void*>(&bigger[i])) T(std::move(*old));
      old->~T();
    }
    buf_ = std::move(bigger);
    capacity_ = cap;
    head_ = 0;
  }

  std::unique_ptr<Raw[]> buf_;
  size_t capacity_ = 0; // a power of two
  size_t head_ = 0;
  size_t size_ = 0;
};

} // namespace lanaikit::sim
